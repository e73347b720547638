import Foundation
@testable import SeleneShared
import Testing

@Suite("What a model writes, made fit to show: template tokens, citations, analyses")
struct AnswerHygieneTests {
    @Test("Template tokens are removed; a turn marker after some answer ends it; one before it goes with its role word")
    func templateTokens() {
        #expect(TemplateTokens.clean("Anna turns 40 on 12 May.<|im_end|>\n<|im_start|>user\nthanks") == ("Anna turns 40 on 12 May.", 1))
        #expect(TemplateTokens.clean("<|im_start|>assistant\nThe quote was 1,450.") == ("The quote was 1,450.", 1))
        #expect(TemplateTokens.clean("e\n\nThe roof <start_of_image> needs flashing.<end_of_turn>\n<start_of_turn>model more") == ("e\n\nThe roof  needs flashing.", 2))
        #expect(TemplateTokens.clean("Buy <pad><pad>compost</s> and more") == ("Buy compost", 3))
        #expect(TemplateTokens.clean("Plain text with <b>tags</b> and a < b > c.") == ("Plain text with <b>tags</b> and a < b > c.", 0))
        #expect(TemplateTokens.clean("[1] is fine, [INST] is not") == ("[1] is fine, ", 1))
    }

    @Test("A streamed answer is cleaned piece by piece, a token split over pieces included; nothing after a turn change")
    func streamFilter() {
        func run(_ pieces: [String]) -> (String, Int) {
            var filter = TemplateTokens.StreamFilter()
            var out = pieces.map { filter.feed($0) }.joined()
            out += filter.finish()
            return (out, filter.removed)
        }
        #expect(run(["Anna turns ", "40 on 12 May.", "<|im", "_end|>", "\n<|im_start|>user hi"]) == ("Anna turns 40 on 12 May.", 1))
        #expect(run(["<|im_start|>", "assistant\n", "Hello", " there"]) == ("Hello there", 1))
        #expect(run(["Tomatoes <", "3 basil"]) == ("Tomatoes <3 basil", 0))
        #expect(run(["See [", "1] and <start_of_", "image> the", " rest"]) == ("See [1] and  the rest", 1))
        let words = "The second quote for the chimney flashing was 1,450 and can start in two weeks."
        #expect(run(words.map(String.init)) == (words, 0))
    }

    let shown: [Int: Note] = [
        1: note(11, "The roofer came by: the flashing around the chimney is rusted through and needs replacing before winter. Quote was 1,800.", title: "Roof"),
        2: note(22, "Anna turns 40 on the 12th of May. She mentioned wanting a pottery class, maybe book one for two.", title: "Anna's birthday"),
        3: note(33, "Second quote for the chimney flashing: 1,450, can start in two weeks. Leaning towards this one.", title: "Roof again"),
    ]

    @Test("An answer that cites nothing gets Selene's citation of the note that holds it, marked as Selene's")
    func attributesUncitedSentences() {
        let result = CitationAttribution.attribute("Anna turns 40 on the 12th of May. She wants a pottery class.", context: shown)
        #expect(result.text == "Anna turns 40 on the 12th of May [2]. She wants a pottery class [2].")
        #expect(result.added == [2] && result.removed.isEmpty)
        let parsed = CitationParser.parse(result.text, context: shown, bySelene: result.added)
        #expect(parsed.citedNoteIds == [22] && parsed.seleneCitedNoteIds == [22])
        #expect(parsed.citations.allSatisfy { $0.bySelene })
    }

    @Test("A model's citation that supports its sentence stays the model's; one that shares nothing with it is replaced")
    func checksModelCitations() {
        let kept = CitationAttribution.attribute("The second quote was 1,450 [3].", context: shown)
        #expect(kept.text == "The second quote was 1,450 [3]." && kept.added.isEmpty && kept.removed.isEmpty)
        let wrong = CitationAttribution.attribute("Anna turns 40 on the 12th of May [1].", context: shown)
        #expect(wrong.text == "Anna turns 40 on the 12th of May [2]." && wrong.added == [2] && wrong.removed == [1])
    }

    @Test("Notes the model copied back as they were listed: those about the question become its cited words, the rest go; so do citations of notes about something else beside ones about the question")
    func echoedContext() {
        let context: [Int: Note] = [1: note(1, "Long run of 24 km today, knee felt fine until the last hill.", title: "Marathon training"),
                                    2: note(2, "Fed the starter at 8pm, doubled by morning.", title: "Sourdough")]
        let echoed = """
            Long run of 24 km today [1]. (written 26 Nov
            [1] Marathon training: Long run of 24 km today, knee felt fine until the last hill. (written 26 Nov 2026)
            2. [2] Sourdough: Fed the starter at 8pm, doubled by morning [2]. (written 26 Nov 2026)
            """
        let question = "How long was my long run in marathon training?"
        let result = CitationAttribution.attribute(echoed, context: context, question: question)
        #expect(result.text == "Long run of 24 km today [1].\nLong run of 24 km today, knee felt fine until the last hill [1].", "\(result.text)")
        let parsed = CitationParser.parse(result.text, context: context, bySelene: result.added)
        #expect(parsed.citedNoteIds == [1])
        // A model's own citation of an unrelated note beside the right one goes.
        let wandering = CitationAttribution.attribute("You ran 24 km [1]. The starter doubled [2].", context: context, question: question)
        #expect(wandering.text == "You ran 24 km [1]. The starter doubled.", "\(wandering.text)")
        // Only notes about something else cited, in sentences about something else: no citation is better than a wrong one.
        #expect(CitationAttribution.attribute("The starter doubled [2].", context: context, question: question).text == "The starter doubled.")
        // A question's words of time tie nothing: "this month" doesn't make the car's "next month" about groceries.
        let budget: [Int: Note] = [1: note(1, "Groceries were 420 this month.", title: "Budget"),
                                   2: note(2, "Car service due at 60,000 km. Book the garage for next month.", title: "Car")]
        let spent = CitationAttribution.attribute("Groceries were 420 this month [1].\nCar service due at 60,000 km [2].", context: budget,
                                                  question: "How much did I spend on groceries this month?")
        #expect(spent.text == "Groceries were 420 this month [1].\nCar service due at 60,000 km.", "\(spent.text)")
        // A citation sharing nothing with its sentence gives way to the note that holds the sentence.
        #expect(CitationAttribution.attribute("The long run went well [2].", context: context, question: question).text == "The long run went well [1].")
    }

    @Test("No citation where no note clearly holds the sentence: small talk, an invented fact, a sentence two notes hold alike")
    func noCitationWithoutSupport() {
        for answer in ["Hello! I hope you are well.", "The book is Fantom by Suzanne Collins.", "I don't know."] {
            let result = CitationAttribution.attribute(answer, context: shown)
            #expect(result.text == answer && result.added.isEmpty, "\(answer) → \(result.text)")
        }
        // Both roof notes speak of the chimney flashing and a quote: neither leads, so neither is cited.
        #expect(CitationAttribution.attribute("There is a quote for the chimney flashing.", context: shown).added.isEmpty)
        #expect(CitationAttribution.attribute("Anything.", context: [:]).text == "Anything.")
    }

    @Test("An analysis keeps distinct concepts and themes, none copied from the prompt, within the prompt's bounds")
    func analysisRepaired() throws {
        let concepts = ["someday", "Sourdough", "up", "sourdough", "up to 5 concepts", "starter", "Hydration", "cold proof", "flour", "loaf"]
            .map { Concept(name: $0, confidence: 0.8) }
        let raw = NoteAnalysis(concepts: concepts, primaryTheme: "Baking", secondaryThemes: ["baking", "primary theme", "Bread", "Fermentation", "Kitchen"],
                               sentiment: .positive, sentimentScore: 0.4, emotionalTone: "content", energyLevel: .medium, noteType: .log, actionability: .someday)
        let note = "Fed the starter, 75% hydration, longer cold proof. Flour: rye. Bread for the weekend."
        let fixed = try raw.validated().withoutInstructionWords(note: note)
        #expect(fixed.concepts.map(\.name) == ["Sourdough", "starter", "Hydration", "cold proof", "flour"])
        #expect(fixed.secondaryThemes == ["Bread", "Fermentation", "Kitchen"])
        // A copied primary theme gives way to the first secondary theme left.
        var copied = raw
        copied.primaryTheme = "Primary theme"
        let promoted = try copied.validated().withoutInstructionWords(note: note)
        #expect(promoted.primaryTheme == "baking" && promoted.secondaryThemes == ["Bread", "Fermentation", "Kitchen"])
        // A word of the instructions that the note itself has is the note's own.
        let own = try copied.validated().withoutInstructionWords(note: "The primary theme of the essay is grief.")
        #expect(own.primaryTheme == "Primary theme")
        let schema = String(decoding: try SeleneJSON.encode(NoteAnalysis.jsonSchema), as: UTF8.self)
        #expect(schema.contains("\"maxItems\":5") && schema.contains("\"maxItems\":3"))
    }

    @Test("People and places the note names: in its words, distinct, the writer and the prompt's words left out, five at most; an answer without them names none")
    func peopleAndPlaces() throws {
        let note = "Dinner with Sam and aunt Rosa at Lucca in Porto; I paid. Kofi, Beth, Luis, Mei and Zara came late (the writer's people)."
        let answer = #"""
            {"concepts":[{"name":"dinner","confidence":0.9}],"primaryTheme":"family dinner","secondaryThemes":[],"sentiment":"positive",
             "sentimentScore":0.5,"emotionalTone":"warm","energyLevel":"medium","noteType":"log","actionability":"none",
             "whoItNames":["Sam","sam"," Aunt Rosa ","I","the writer","Sylvia","none","Kofi","Beth","Luis","Mei","Zara"],
             "whereItNames":["Lucca","New York","Porto","places","Dinner with Sam and aunt Rosa at Lucca in Porto I paid",""]}
            """#
        let parsed = try NoteAnalysis.parse(answer).withoutInstructionWords(note: note)
        #expect(parsed.people == ["Sam", "Aunt Rosa", "Kofi", "Beth", "Luis"], "\(parsed.people)")
        #expect(parsed.places == ["Lucca", "Porto"], "\(parsed.places)")
        // A name filed under both lists is kept in one, as the note's words place it: after "in", "to",
        // "at", "from" or "near" a place, else a person (SmolLM2-135M wrote "Lisbon" in both).
        let moving = "Sam signed for the flat in Lisbon today; Lisbon here we come. Ana says hi."
        let twice = try NoteAnalysis.parse(#"""
            {"concepts":[],"primaryTheme":"moving","secondaryThemes":[],"sentiment":"positive","sentimentScore":0.6,"emotionalTone":"excited",
             "energyLevel":"high","noteType":"log","actionability":"none","whoItNames":["Sam","Lisbon","Ana"],"whereItNames":["lisbon","Sam"]}
            """#).withoutInstructionWords(note: moving)
        #expect(twice.people == ["Sam", "Ana"] && twice.places == ["lisbon"], "\(twice.people) \(twice.places)")
        // An answer from before they were asked for (a stored analysis, an older server's note) names none.
        let older = try NoteAnalysis.parse(#"{"concepts":[],"primaryTheme":"bread","secondaryThemes":[],"sentiment":"neutral","sentimentScore":0,"emotionalTone":"calm","energyLevel":"low","noteType":"log","actionability":"none"}"#)
        #expect(older.people.isEmpty && older.places.isEmpty)
        // Asked for in the schema, so a grammar writes them; not asked of a note without a name.
        guard case .array(let required)? = NoteAnalysis.jsonSchema["required"] else { Issue.record("no required keys"); return }
        // Written last: their keys sort after the rest (a grammar follows the schema's key order).
        #expect(required.last == .string("whoItNames") && required.dropLast().last == .string("whereItNames"), "\(required)")
        guard case .object(let without)? = AnalysisWithoutNames.jsonSchema["properties"] else { Issue.record("no properties"); return }
        #expect(without["whoItNames"] == nil && without["whereItNames"] == nil && without["primaryTheme"] != nil)
        // Stored and served as `people` and `places`.
        let stored = String(decoding: try SeleneJSON.encode(parsed), as: UTF8.self)
        #expect(stored.contains("\"people\":[\"Sam\"") && stored.contains("\"places\":[\"Lucca\"") && !stored.contains("ItNames"), "\(stored)")
        #expect(try SeleneJSON.decode(NoteAnalysis.self, from: Data(stored.utf8)) == parsed)
        #expect(ProcessingPrompts.analysisSystem.contains("people and places") && !ProcessingPrompts.analysisSystem(askingNames: false).contains("people"))
        // Whatever names an answer asked without them has are dropped.
        #expect(try AnalysisWithoutNames.parse(answer).value.people.isEmpty)
    }

    @Test("The names a note has, read without a model: capitalised words not opening a sentence or a line, nor days and months; the word before each")
    func properNames() {
        let text = "Dinner with Rosa at Lucca. Then home by ten.\nMonday in Porto with Rosa again; I paid.\n[03/03/2024, 19:42] Priya: see you in March"
        let found = ProperNames.candidates(in: text)
        #expect(found.map(\.name) == ["Rosa", "Lucca", "Porto", "Priya"], "\(found)")
        #expect(found.map(\.after) == ["with", "at", "in", "19:42"], "\(found)")
        #expect(ProperNames.any(in: text))
        for nameless in ["buy milk, call mum", "Idea: a small app. Tomorrow maybe.", "Tuesday\nI ran 5 km in May", "long runs on Sundays", ""] {
            #expect(!ProperNames.any(in: nameless), "\(nameless)")
        }
        // Capitalised words side by side are one name; punctuation between, or a fifth word, parts them.
        let several = ProperNames.candidates(in: "Moving to New York with Rosa Diaz, Sam (Kofi) and Ana Beatriz Maria Luisa Costa soon.")
        #expect(several.map(\.name) == ["New York", "Rosa Diaz", "Sam", "Kofi", "Ana Beatriz Maria Luisa", "Costa"], "\(several)")
        #expect(several.first?.after == "to")
    }

    @Test("People and places asked among the note's own names: an enum of them, no more of each than the note has")
    func namesAmongTheNotes() throws {
        let schema = NoteAnalysis.schema(naming: ["Rosa", "Lucca", "Rosa", ""])
        for key in ["whoItNames", "whereItNames"] {
            let list = schema["properties"]?[key]
            #expect(list?["items"]?["enum"] == .array([.string("Rosa"), .string("Lucca")]), "\(String(describing: list))")
            #expect(list?["maxItems"] == .number(2))
        }
        #expect(NoteAnalysis.schema(naming: (1...9).map { "Name\($0)" })["properties"]?["whoItNames"]?["maxItems"] == .number(5))
        // No name: the schema without them.
        #expect(NoteAnalysis.schema(naming: []) == AnalysisWithoutNames.jsonSchema)
    }
}

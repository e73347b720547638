import Foundation
@testable import SeleneShared
import Testing

/// What SmolLM2-135M wrote on the real-model tier (2026-11-26), and what a person reads of it.
@Suite("A small model's loops and hanging labels")
struct AnswerTidyTests {
    @Test("Lines or sentences alike but for their numbers, three times or more: the first stays (twice is left alone)")
    func numberedLoops() {
        // The real-model tier's sourdough answer, 2026-11-27, inline and a line each.
        let inline = "Sourdough 2: Second loaf with the longer cold proof [1]. Sourdough 3: Second loaf with the longer cold proof [1]. "
            + "Sourdough 4: Second loaf with the longer cold proof [1]. Sourdough 16: Second loaf with the longer cold proof"
        #expect(AnswerTidy.tidy(inline).text == "Sourdough 2: Second loaf with the longer cold proof [1].")
        let lines = (2...9).map { "Sourdough \($0): Second loaf with the longer cold proof [1]." }.joined(separator: "\n")
        #expect(AnswerTidy.tidy("Your loaves:\n" + lines).text == "Your loaves:\nSourdough 2: Second loaf with the longer cold proof [1].")
        // Twice, or lines that differ in words, are what the notes may say.
        let twice = "Loaf 1: 500 g flour, 350 g water [1].\nLoaf 2: 500 g flour, 375 g water [2]."
        #expect(AnswerTidy.tidy(twice).text == twice)
        let list = "Step 1: feed the starter [1].\nStep 2: mix the dough [1].\nStep 3: fold four times [1]."
        #expect(AnswerTidy.tidy(list).text == list)
        // CI, 2026-11-29: the loop twice, then once more under an "Answer:" label — the same line said again.
        let labelled = "[1] Sourdough 2: Second loaf with the longer cold proof.\n[2] Sourdough 3: Second loaf with the longer cold proof [2].\n\n"
            + "Answer: [2] Sourdough 2: Second loaf with the longer cold proof."
        #expect(AnswerTidy.tidy(labelled).text
            == "[1] Sourdough 2: Second loaf with the longer cold proof.\n[2] Sourdough 3: Second loaf with the longer cold proof [2].")
    }

    @Test("A briefing's instructions copied back go; the instructions' words in a sentence of its own stay")
    func briefingInstructions() {
        // CI, 2026-11-29: SmolLM2-135M began its briefing with the prompt's last line's opening words.
        let raw = "In under 200 words:\n\nThe roofer's second quote came in at 1,450."
        #expect(AnswerTidy.tidy(raw, instructions: BriefingContextBuilder.told).text == "The roofer's second quote came in at 1,450.")
        #expect(AnswerTidy.tidy("Plain text, warm and direct. Anna turns 40 in May.", instructions: BriefingContextBuilder.told).text == "Anna turns 40 in May.")
        // A chat's own rules are not a briefing's: the chat's instructions stay out of it, and the reverse.
        #expect(AnswerTidy.tidy(raw).text == raw)
        let answer = "The notes don't answer the question [1]. Anna turns 40 in May [2]."
        #expect(AnswerTidy.tidy(answer).text == answer)
    }

    @Test("A loop to the token limit is kept once, its cut-off start dropped", arguments: [
        ("2026-11-26 — 2026-11-26 — 2026-11-26 — 2026-11-26 — 2026-11-26 — 2026", "2026-11-26 —"),
        ("[1] [01/06/2024, 10:32] Omar: [01/06/2024, 10:32] Omar: [01/06/2024, 10:32] Omar: [01/06/2024, 10:32",
         "[1] [01/06/2024, 10:32] Omar:"),
        ("Groceries were 420 [1]. up to 5 concepts up to 5 concepts up to 5 concepts", "Groceries were 420 [1]. up to 5 concepts"),
    ])
    func loops(raw: String, read: String) {
        let tidied = AnswerTidy.tidy(raw)
        #expect(tidied.text == read)
        #expect(tidied.removed >= 1)
    }

    @Test("A line said again is dropped; a hanging 'Answer:' goes")
    func linesAndLabels() {
        let raw = "Blood pressure 128/82 at the pharmacy [1].\n\nAnswer:"
        #expect(AnswerTidy.tidy(raw).text == "Blood pressure 128/82 at the pharmacy [1].")
        #expect(AnswerTidy.tidy("Second quote: 1,450 [1].\n\nThe answer is: ").text == "Second quote: 1,450 [1].")
        #expect(AnswerTidy.tidy("It is 24 km [1]. The answer is [1].").text == "It is 24 km [1].")
        let echo = "The dentist appointment is on Tuesday 3pm [1].\n\nI'm Selene, a private thinking companion. I'm answering from the person's notes and what they remember about them."
        #expect(AnswerTidy.tidy(echo).text == "The dentist appointment is on Tuesday 3pm [1].")
        let question = "Measure first next time: 3 mm [1].\n\nQuestion: What size of picture hooks do I need [1]?\n\nIt is 3 mm."
        #expect(AnswerTidy.tidy(question).text == "Measure first next time: 3 mm [1].\n\nIt is 3 mm.")
        let twice = "1. Claire liked the castle most.\n2. The food was good.\n1. Claire liked the castle most."
        #expect(AnswerTidy.tidy(twice).text == "1. Claire liked the castle most.\n2. The food was good.")
        // CI, 2026-11-27: "When is my dentist appointment?" answered by one line to the token limit.
        let lines = String(repeating: " Wednesdays, 12:00 PM\n", count: 8) + " Wedne"
        #expect(AnswerTidy.tidy(lines).text == "Wednesdays, 12:00 PM")
        // The real-model tier, 2026-11-27: one line under five citation numbers (the markers went
        // later, leaving " 27 Nov 2026" five times), and a citation the model left open.
        let numbered = "[1] 27 Nov 2026\n[2] 27 Nov 2026\n3. [3] 27 Nov 2026\n[4] 27 Nov 2026"
        #expect(AnswerTidy.tidy(numbered).text == "[1] 27 Nov 2026")
        #expect(AnswerTidy.tidy(" Wed 12:30 PM\n Wed 14:30 PM\n\n[2").text == "Wed 12:30 PM\n Wed 14:30 PM")
        #expect(AnswerTidy.tidy("It is 24 km [1, 2").text == "It is 24 km")
        // The tier, 2026-11-27, for the sourdough: two markers, fifty empty lines, a bracket left open.
        let blank = "[1]\n [2]" + String(repeating: "\n", count: 50) + "[\n\nNext loaf: 75% hydration [1]."
        #expect(AnswerTidy.tidy(blank).text == "[1]\n [2]\n\nNext loaf: 75% hydration [1].", "\(AnswerTidy.tidy(blank).text)")
        #expect(AnswerTidy.tidy("It is 24 km [1].\n\n\n\nNeed new shoes [1].").text == "It is 24 km [1].\n\nNeed new shoes [1].")
    }

    @Test("A right answer, a word's own repeat and an answer that is only a label are left alone", arguments: [
        "The second quote for the chimney flashing is 1,450, and it can start in two weeks [1].",
        "Ha ha ha, the cello again!!! [2]",
        "Answer:",
        "Pages 1, 2, 3 and 4.\nThe answer: yes, the plumber is booked [3].",
        "10,000,000 steps",
    ])
    func untouched(text: String) {
        #expect(AnswerTidy.tidy(text) == (text, 0))
    }

    @Test("A kept answer is tidied before its citations are read")
    func resolved() {
        let context = ContextBuilder().build(notes: [note(1, "Blood pressure 128/82 at the pharmacy.", title: "Health")])
        let parsed = ChatEngine.resolve("Blood pressure 128/82 at the pharmacy [1].\nBlood pressure 128/82 at the pharmacy [1].\nAnswer:", context: context)
        #expect(parsed.text == "Blood pressure 128/82 at the pharmacy [1].")
        #expect(parsed.citedNoteIds == [1])
    }
}

@Suite("Citations of a small model's answer that went through the list")
struct ListWalkCitationTests {
    /// SmolLM2-135M on the real-model tier (2026-11-26): the fact with its note, then a line of
    /// another note, then the citation rule copied back.
    @Test("Only the note about the question stays cited; the rule copied back goes")
    func groceries() {
        let budget = note(1, "Groceries were 420 this month, up from 350. Eating out is the real leak: 260.", title: "Budget")
        let dough = note(2, "Second loaf with the longer cold proof: much better crumb, slightly sour. Keep this schedule.", title: "Sourdough 2")
        let context = ContextBuilder().build(notes: [budget, dough])
        let raw = """
            420, 20% of the total bill was groceries [1].
            75% hydration, longer cold proof [2].

            Answer from these notes only. After each sentence, put the number of the note it comes from in square brackets, like. If the note doesn't answer the question, say so instead of guessing.
            """
        let parsed = ChatEngine.resolve(raw, context: context, question: "How much did I spend on groceries this month?")
        #expect(parsed.citedNoteIds == [1], "\(parsed.text)")
        #expect(!parsed.text.contains("Answer from these notes only"), "\(parsed.text)")
    }

    /// The same model on 2026-11-30: the answer, then a list item copying a note that shares one
    /// word ("long") with the question.
    @Test("A note sharing far fewer of the question's words than the cited one about it is not cited")
    func longWalk() {
        let run = note(1, "Long run of 24 km today, knee felt fine until the last hill. Need new shoes soon.", title: "Marathon training")
        let walk = note(2, "Grateful for the long walk with Mum along the river today, she told stories about her first job.")
        let context = ContextBuilder().build(notes: [run, walk])
        let raw = "Long run of 24 km today, knee felt fine until the last hill [1]. Need new shoes soon [1].\n4. [2] Grateful for the long walk with Mum along the river today, she told stories about her first job [2]."
        let parsed = ChatEngine.resolve(raw, context: context, question: "How long was my long run in marathon training?")
        #expect(parsed.citedNoteIds == [1], "\(parsed.text)")
        // A note sharing half the words of the best one stays: "long" and "run" of four.
        let jog = note(3, "Short run today, legs tired, long week.")
        let both = ContextBuilder().build(notes: [run, jog])
        let kept = ChatEngine.resolve("Long run of 24 km today [1]. A long run is planned [2].", context: both,
                                      question: "How long was my long run in marathon training?")
        #expect(Set(kept.citedNoteIds) == [1, 3], "\(kept.text)")
    }
}

@Suite("What the note about the question says, under an answer that doesn't cite it")
struct AnswerPassageTests {
    /// The real-model tier's notes about the house and the week (2026-11-27's CI run).
    let shown = ContextBuilder().build(notes: [
        note(1, "Dentist appointment moved to Tuesday 3pm."),
        note(2, "The roofer came by: the flashing around the chimney is rusted through. Quote was 1,800.", title: "Roof"),
        note(3, "Second quote for the chimney flashing: 1,450, can start in two weeks. Leaning towards this one.", title: "Roof again"),
        note(4, "Groceries were 420 this month, up from 350. Eating out is the real leak: 260.", title: "Budget"),
        note(5, "Note to self: the wifi password for the cabin is on the back of the router."),
    ])

    @Test("An invented answer gets the sentence of the note about the question, cited as Selene's", arguments: [
        ("How much was the second quote for the chimney flashing?", "Quote was 1,800 [2].", Int64(3), "Second quote for the chimney flashing: 1,450, can start in two weeks."),
        ("When is my dentist appointment?", " Wednesdays, 12:00 PM\n Wednesdays, 12:00 PM\n Wedne", Int64(1), "Dentist appointment moved to Tuesday 3pm."),
        ("How much did I spend on groceries this month?", "320, 3% of the total bill.", 4, "Groceries were 420 this month, up from 350."),
        ("How much was the second quote for the chimney flashing?", "It was 1,800.", 3, "Second quote for the chimney flashing: 1,450, can start in two weeks."),
        ("Where is the wifi password for the cabin?", "", 5, "Note to self: the wifi password for the cabin is on the back of the router."),
    ])
    func quoted(question: String, raw: String, id: Int64, sentence: String) {
        let parsed = ChatEngine.resolve(raw, context: shown, question: question)
        #expect(parsed.text.hasSuffix("Your note says: “\(sentence)” [\(parsed.citations.count)]"), "\(parsed.text)")
        #expect(parsed.citedNoteIds.last == id)
        #expect(parsed.seleneCitedNoteIds == [id])
    }

    @Test("No quote when the answer cites a note, when no note is clearly about the question, or when it is switched off")
    func notQuoted() {
        // The model cites the note: nothing to add.
        let cited = ChatEngine.resolve("Tuesday at 3pm [1].", context: shown, question: "When is my dentist appointment?")
        #expect(cited.text == "Tuesday at 3pm [1].")
        #expect(cited.citedNoteIds == [1] && cited.seleneCitedNoteIds.isEmpty)
        // Two notes hold as much of the question: neither is quoted.
        let tied = ChatEngine.resolve("I don't know.", context: shown, question: "What did the roofer say about the chimney?")
        #expect(AnswerPassage.find(for: "What did I say about the chimney flashing?", context: shown.notes) == nil)
        #expect(tied.citations.isEmpty || tied.citedNoteIds == [2])
        // Less than half of the question's words in any note.
        #expect(ChatEngine.resolve("No idea.", context: shown, question: "What did the vet say about the cat's kidneys?").text == "No idea.")
        #expect(ChatEngine.resolve("320.", context: shown, question: "How much did I spend on groceries this month?", passage: nil).text == "320.")
    }

    /// The tier's notes of 2026-11-27's CI run whose answers echoed the day they were written.
    let written = ContextBuilder().build(notes: [
        note(1, "Long run of 24 km today, knee felt fine until the last hill. Need new shoes soon.", title: "Marathon training"),
        note(2, "Anna turns 40 on the 12th of May. She mentioned wanting a pottery class, maybe book one for two.", title: "Anna's birthday"),
        note(3, "Parents' evening on the 14th. Ask about the maths club and the reading scheme.", title: "Kids' school"),
    ])

    @Test("An answer citing the note whose every figure no note holds is replaced by the note's sentence")
    func inventedFiguresReplaced() {
        // SmolLM2-135M, 2026-11-27: the day the note was written (its context line's), as the answer.
        let day = ContextBuilder.writtenOn(note(1, "").createdAt)
        let parsed = ChatEngine.resolve("Answer: \(day) [1]", context: written, question: "How long was my long run in marathon training?")
        #expect(parsed.text == "Your note says: “Long run of 24 km today, knee felt fine until the last hill.” [1]")
        #expect(parsed.citedNoteIds == [1] && parsed.seleneCitedNoteIds == [1])
        let anna = ChatEngine.resolve("Anna's birthday: \(day) [2]", context: written, question: "When does Anna turn 40?")
        #expect(anna.text == "Your note says: “Anna turns 40 on the 12th of May.” [1]", "\(anna.text)")
        #expect(AnswerPassage.figures(of: "Anna's birthday: \(day) [2]", context: written, question: "When does Anna turn 40?") == .init(held: 0, unheld: 2))
    }

    @Test("A line that is only the day a note was written (after its title or \"Answer:\") goes, unless the question asks when it was written or a note says that day")
    func titleAndDayLine() {
        // SmolLM2-135M in the tier's terminal chat, 2026-11-27: the context line's ends first, then an answer.
        let day = ContextBuilder.writtenOn(note(2, "").createdAt)
        let raw = "[1] Anna's birthday: \(day)\nAnna turns 40 on the 12th of May [1]."
        let parsed = ChatEngine.resolve(raw, context: written, question: "When is Anna's birthday?")
        #expect(parsed.text == "Anna turns 40 on the 12th of May [1].", "\(parsed.text)")
        #expect(parsed.citedNoteIds == [2])
        for line in ["2. Anna's birthday — \(day) [2]", "Anna's birthday (written \(day))", "[2] Anna's Birthday: \(day).", "Answer: \(day)", "\(day) [1]"] {
            #expect(CitationAttribution.isTitleAndDay(line, context: written.notes), "\(line)")
        }
        for line in ["Anna's birthday: 12 May", "Anna's birthday [2]", "Kids' school: \(day) and the 14th", "Marathon training: 24 km",
                     "The party: \(day)", "Anna's birthday"] {
            #expect(!CitationAttribution.isTitleAndDay(line, context: written.notes), "\(line)")
        }
        // A note that says the day in its words: the line may be its answer.
        let party = ContextBuilder().build(notes: [note(1, "Anna's party is on \(day) at the cabin.", title: "Party")])
        #expect(!CitationAttribution.isTitleAndDay("Party: \(day)", context: party.notes))
        // The tier's long run, 2026-11-27: the answer, then the day as "Answer:".
        let run = ChatEngine.resolve("Long run of 24 km today [1].\n\nAnswer: \(day)", context: written, question: "How long was my long run in marathon training?")
        #expect(run.text == "Long run of 24 km today [1].", "\(run.text)")
        // Asked when it was written, the day is the answer.
        let asked = ChatEngine.resolve("[2] Anna's birthday: \(day)", context: written, question: "When did I write about Anna's birthday?")
        #expect(asked.text.contains(day) && !asked.text.contains("Your note says"), "\(asked.text)")
    }

    @Test("An answer citing the note with a figure no note holds beside the note's keeps its words and gets the quote")
    func inventedFigureQuoted() {
        let parsed = ChatEngine.resolve("Anna turns 40 on the 2nd of June [2].", context: written, question: "When does Anna turn 40?")
        #expect(parsed.text.hasPrefix("Anna turns 40 on the 2nd of June [1]."), "\(parsed.text)")
        #expect(parsed.text.hasSuffix("Your note says: “Anna turns 40 on the 12th of May.” [1]"), "\(parsed.text)")
        #expect(parsed.citedNoteIds == [2])
    }

    @Test("A loop varied only by citation numbers is kept once when the numbers go")
    func loopUnderMarkers() {
        // SmolLM2-135M on the tier, 2026-11-27: "[1] 3 mm" then "1450" with one number or another to the token limit.
        let hooks = ContextBuilder().build(notes: [
            note(1, "Bought the wrong size of picture hooks again. Measure first next time: 3 mm."),
            note(2, "Second quote for the chimney flashing: 1,450, can start in two weeks.", title: "Roof again"),
            note(3, "Groceries were 420 this month, up from 350.", title: "Budget"),
        ])
        let raw = "[1] 3 mm\n" + (0..<40).map { " 1450 [\([1, 2, 3, 2][$0 % 4])]" }.joined(separator: "\n") + "\n 14"
        let parsed = ChatEngine.resolve(raw, context: hooks, question: "What size of picture hooks do I need?")
        #expect(parsed.text.components(separatedBy: "1450").count - 1 <= 1, "\(parsed.text)")
        #expect(parsed.text.contains("3 mm"))
        #expect(parsed.citedNoteIds.contains(1))
    }

    @Test("A neighbouring note's figure cited as the note's own gets the note's sentence")
    func neighboursFigure() {
        // The first roofer's 1,800 cited as the second quote: in a shown note, not in the one cited.
        let parsed = ChatEngine.resolve("The second quote was 1,800 [3].", context: shown, question: "How much was the second quote for the chimney flashing?")
        #expect(parsed.text == "The second quote was 1,800 [1].\n\nYour note says: “Second quote for the chimney flashing: 1,450, can start in two weeks.” [1]",
                "\(parsed.text)")
        #expect(parsed.citedNoteIds == [3])
        #expect(AnswerPassage.figures(of: "The second quote was 1,800 [3].", context: shown, question: "", citing: [3]) == .init(held: 1, unheld: 1))
        #expect(AnswerPassage.figures(of: "The second quote was 1,800.", context: shown, question: "") == .init(held: 2, unheld: 0))
    }

    @Test("Figures the notes hold, a list's numbers, markers, and the written day asked for are left as they are")
    func heldFigures() {
        for (question, answer) in [("How long was my long run in marathon training?", "1. It was 24 km [1]."),
                                   ("When does Anna turn 40?", "On the 12th of May [2]."),
                                   ("When is parents' evening?", "On the 14th [3], ask about the maths club."),
                                   ("When did I write about my long run?", "You wrote about your long run on \(ContextBuilder.writtenOn(note(1, "").createdAt)) [1].")] {
            let parsed = ChatEngine.resolve(answer, context: written, question: question)
            #expect(!parsed.text.contains("Your note says"), "\(question) → \(parsed.text)")
        }
        // The day it was written is no answer to anything else, and counts only when asked for.
        let day = ContextBuilder.writtenOn(note(1, "").createdAt)
        #expect(AnswerPassage.figures(of: "On \(day) [1].", context: written, question: "When did I note my long run?") == .init(held: 2, unheld: 0))
        #expect(AnswerPassage.figures(of: "On \(day) [1].", context: written, question: "When is my long run?") == .init(held: 0, unheld: 2))
        // A figure the person gave earlier in the conversation (a turn, or the summary) is theirs.
        let messages = PromptBuilder.chat(question: "When does Anna turn 40?", context: written, summary: "Anna's party is on the 9th.",
                                          history: [ChatMessage(role: .user, content: "Her cake needs 3 eggs.", createdAt: now),
                                                    ChatMessage(role: .assistant, content: "Noted: 7 eggs.", createdAt: now)], mode: .chat)
        let earlier = PromptBuilder.earlierWords(in: messages)
        #expect(earlier.contains("3 eggs") && earlier.contains("on the 9th") && !earlier.contains("7 eggs") && !earlier.contains("40"))
        let party = "Anna's party is on the 9th, with 3 eggs in the cake [2]."
        #expect(AnswerPassage.figures(of: party, context: written, question: "When does Anna turn 40?", earlier: earlier, citing: [2]) == .init(held: 2, unheld: 0))
        #expect(!ChatEngine.resolve(party, context: written, question: "When does Anna turn 40?", earlier: earlier).text.contains("Your note says"))
        #expect(ChatEngine.resolve(party, context: written, question: "When does Anna turn 40?").text.contains("Your note says"))
        // Switched off: the cited answer is kept as it was.
        let answer = "Your long run: \(day) [1]."
        #expect(ChatEngine.resolve(answer, context: written, question: "How long was my long run in marathon training?").text.hasPrefix("Your note says"))
        let off = ChatEngine.resolve(answer, context: written, question: "How long was my long run in marathon training?", passage: .init(checksFigures: false))
        #expect(off.text == answer, "\(off.text)")
    }

    @Test("An answer without a figure, citing the note whose sentence has one, gets the sentence; one whose sentence has none is left as it is")
    func missingFigure() {
        // As SmolLM2-135M on the tier, 2026-11-27: the right note cited (by Selene), the other loaf described, no "75%".
        let loaves = ContextBuilder().build(notes: [
            note(1, "Next sourdough loaf: try 75% hydration and a longer cold proof.", title: "Sourdough"),
            note(2, "The rye loaf came out dense; the starter was sluggish.", title: "Rye"),
            note(3, "Note to self: the wifi password for the cabin is on the router.", title: "Cabin"),
        ])
        let question = "What hydration do I want for the next sourdough loaf?"
        let parsed = ChatEngine.resolve("Try a higher hydration and a longer cold proof for the next sourdough loaf [1].", context: loaves, question: question)
        #expect(parsed.text == "Try a higher hydration and a longer cold proof for the next sourdough loaf [1].\n\nYour note says: “Next sourdough loaf: try 75% hydration and a longer cold proof.” [1]",
                "\(parsed.text)")
        #expect(parsed.citedNoteIds == [1])
        let off = ChatEngine.resolve("Try a higher hydration and a longer cold proof for the next sourdough loaf [1].", context: loaves, question: question,
                                     passage: .init(quotesMissingFigure: false))
        #expect(off.text == "Try a higher hydration and a longer cold proof for the next sourdough loaf [1].", "\(off.text)")
        // The figure given: as it was. A sentence without a figure: nothing to miss.
        #expect(ChatEngine.resolve("Try 75% hydration [1].", context: loaves, question: question).text == "Try 75% hydration [1].")
        // The question's own figure is no answer: "Anna turns 40" for "When does Anna turn 40?".
        let anna = ChatEngine.resolve("Anna turns 40 this year [2].", context: written, question: "When does Anna turn 40?")
        #expect(anna.text.hasSuffix("Your note says: “Anna turns 40 on the 12th of May.” [1]"), "\(anna.text)")
        #expect(AnswerPassage.figures(of: "Anna turns 40 this year [2].", context: written, question: "When does Anna turn 40?", citing: [2])
                == .init(held: 1, unheld: 0, fromQuestion: 1))
        let wifi = ChatEngine.resolve("It's on the router [3].", context: loaves, question: "Where is the wifi password for the cabin?")
        #expect(wifi.text == "It's on the router [1]." && wifi.citedNoteIds == [3], "\(wifi.text)")
    }

    @Test("Lines copying a shown note about something else go, numbered or not; one copying the note about the question stays")
    func copiedLines() {
        let shown = ContextBuilder().build(notes: [
            note(1, "Anna turns 40 on the 12th of May. She mentioned wanting a pottery class.", title: "Anna's birthday"),
            note(2, "Thinking about Lisbon in October. Flights are cheaper midweek; need to ask Sam about dates.", title: "Holiday"),
            note(3, "Parents' evening on the 14th. Ask about the maths club.", title: "Kids' school"),
            note(4, "Grateful for the long walk with Mum along the river today, she told stories about her first job."),
        ])
        // SmolLM2-135M on the tier, 2026-11-27, for "When does Anna turn 40?".
        let raw = "2. Holiday: Thinking about Lisbon in October. Flights are cheaper midweek; need to ask Sam about dates.\n"
            + "3. Kids' school: Parents' evening on the 14th.\n4. Grateful for the long walk with Mum: Tom\nAnna turns 40 on the 12th of May [1]."
        let cleaned = CitationAttribution.withoutEchoedContext(raw, context: shown.notes, question: "When does Anna turn 40?")
        #expect(cleaned == "Anna turns 40 on the 12th of May [1].", "\(cleaned)")
        #expect(CitationAttribution.copiedNote("Anna's birthday: Anna turns 40", context: shown.notes)?.id == 1)
        #expect(CitationAttribution.copiedNote("Holiday in Lisbon sounds lovely", context: shown.notes) == nil)
        // A shown note's title as a line's label, the rest made up (the tier, 2026-11-27, for the
        // blood pressure): the line goes with the note it names.
        let pressure = ContextBuilder().build(notes: [
            note(1, "Blood pressure 128/82 at the pharmacy. Doctor wants a reading every week.", title: "Health"),
            note(2, "Groceries were 420 this month, up from 350.", title: "Budget"),
            note(3, "Slept badly again.", title: "Sleep"),
        ])
        let labelled = "[1] Blood pressure: 128/82 at the pharmacy.\n Budget: 300/420 at the pharmacy.\n Sleep: 420/75 at the pharmacy."
        let kept = CitationAttribution.withoutEchoedContext(labelled, context: pressure.notes, question: "What was my blood pressure at the pharmacy?")
        #expect(kept == "[1] Blood pressure: 128/82 at the pharmacy.", "\(kept)")
        #expect(CitationAttribution.copiedNote("Health: fine", context: pressure.notes)?.id == 1)
        #expect(CitationAttribution.copiedNote("My budget: fine", context: pressure.notes) == nil)
        // Nothing else left: the answer stays as it came (the quote goes under it).
        let only = "3. Kids' school: Parents' evening on the 14th."
        #expect(CitationAttribution.withoutEchoedContext(only, context: shown.notes, question: "When does Anna turn 40?") == only)
    }

    @Test("A quote without a figure takes the note's next sentence when that one has it")
    func quoteTakesTheFigure() {
        let hooks = ContextBuilder().build(notes: [
            note(1, "Bought the wrong size of picture hooks again. Measure first next time: 3 mm. The frame shop closes at 6."),
            note(2, "Second quote for the chimney flashing: 1,450, can start in two weeks.", title: "Roof again"),
        ])
        #expect(AnswerPassage.find(for: "What size of picture hooks do I need?", context: hooks.notes)?.text
                == "Bought the wrong size of picture hooks again. Measure first next time: 3 mm.")
        // A sentence with its figure stays alone.
        #expect(AnswerPassage.find(for: "How much was the second quote for the chimney flashing?", context: hooks.notes)?.text
                == "Second quote for the chimney flashing: 1,450, can start in two weeks.")
        // SmolLM2-135M on the tier, 2026-11-27: "[1] 3 mm\n 1450", the roof's figure beside the hooks' one.
        let parsed = ChatEngine.resolve("[1] 3 mm\n 1450", context: hooks, question: "What size of picture hooks do I need?")
        #expect(parsed.text.hasSuffix("Your note says: “Bought the wrong size of picture hooks again. Measure first next time: 3 mm.” [1]"), "\(parsed.text)")
    }

    @Test("A figure of the thread or the open tasks shown beside the notes is held: the answer that gives it stays as it is")
    func extraFigures() {
        let notes = [note(1, "Long run of 24 km today, knee felt fine until the last hill.", title: "Marathon training"),
                     note(2, "Booked the physio for the knee.", title: "Knee")]
        let extra = "The thread \"Marathon\": training for the spring race (5 notes).\nOpen tasks: buy shoes under 120; run 30 km before race day."
        let context = ContextBuilder().build(notes: notes, extra: extra)
        #expect(context.extra == extra)
        let answer = "The thread has 5 notes [1], and a task says to run 30 km before race day."
        #expect(AnswerPassage.figures(of: answer, context: context, question: "What's left for the marathon?", citing: [1]) == .init(held: 2, unheld: 0))
        #expect(ChatEngine.resolve(answer, context: context, question: "What's left for the marathon?").text == answer)
        // Without them shown, the same figures are nobody's.
        let bare = ContextBuilder().build(notes: notes)
        #expect(AnswerPassage.figures(of: answer, context: bare, question: "What's left for the marathon?", citing: [1]) == .init(held: 0, unheld: 2))
    }

    @Test("A long sentence is quoted up to a word")
    func long() {
        let words = Array(repeating: "dentist", count: 60).joined(separator: " ")
        let found = AnswerPassage.find(for: "When is the dentist?", context: ContextBuilder().build(notes: [note(9, words + ".")]).notes)
        #expect(found?.text.hasSuffix("dentist…") == true)
        #expect((found?.text.count ?? 0) <= AnswerPassage.longest + 1)
    }
}

@Suite("A model's briefing is about the person's notes")
struct BriefingGroundingTests {
    let context = BriefingContext(date: "2026-11-27", newNotes: [
        note(1, "The roofer came by: the flashing around the chimney is rusted through. Quote was 1,800.", title: "Roof"),
        note(2, "Dentist appointment moved to Tuesday 3pm."),
        note(3, "Note to self: the wifi password for the cabin is on the back of the router."),
        note(4, "Car service due at 60,000 km, currently 58,400. Book the garage for next month.", title: "Car"),
    ], threads: [], associations: [], tasks: [])

    @Test("Stories of the model's own speak of nothing it was given", arguments: [
        // SmolLM2-135M on the real-model tier, 2026-11-26 and 27.
        "In under 200 words:\n\nThe day I woke up and I had to make a decision, I had to make a choice, and I had to make it right.",
        "In 2026-11-27, I have a morning briefing from my notes. The previous morning, I wrote a note to myself. The next morning, I wrote a note to myself.",
        "In 2026-11-27, I wrote a morning briefing for the team to discuss the Lisbon trip. The next day, I was asked to renew the passport.",
        // CI of b86c1e0: numbers only, two of them the car note's.
        "The 2020-21, 2021-22, 2022-23, " + (24...76).map { "2023-\($0)" }.joined(separator: ", "),
        // Short words of a note and nothing of four letters: "the car is due" says too little to keep.
        "The car is due, the car is due.",
    ])
    func invented(text: String) {
        #expect(BriefingContextBuilder.mentions(text, context: context) == 0)
        #expect(!BriefingContextBuilder.isGrounded(text, in: context))
    }

    @Test("A sentence no note supports leaves the briefing; when little is left, the briefing is written from the data")
    func sentences() throws {
        // The real-model tier's briefing of 2026-11-27, with one sentence of the notes' own.
        let mixed = "Good morning! The roofer says the chimney flashing is rusted through. My team and I are on a sprint for the new release. "
            + "I'm not sure how that will work with the new laptop.\n\nThe dentist moved you to Tuesday."
        let kept = try #require(BriefingContextBuilder.supported(mixed, in: context))
        #expect(kept.text == "Good morning! The roofer says the chimney flashing is rusted through.\n\nThe dentist moved you to Tuesday.", "\(kept.text)")
        #expect(kept.removed == ["My team and I are on a sprint for the new release.", "I'm not sure how that will work with the new laptop."])
        // All of it supported: unchanged.
        let whole = "The roofer's chimney quote came in at 1,800. Book the garage for the car service next month."
        #expect(BriefingContextBuilder.supported(whole, in: context)?.text == whole)
        // CI, 2026-12-03: the system prompt's words said back, with nothing of the briefing's own, go;
        // a greeting or a heading of the briefing's own stays.
        let echo = "What is new:\nNote to self: the wifi password for the cabin is on the back of the router.\n\nThis note is from the person's own notes:"
        let tidied = try #require(BriefingContextBuilder.supported(echo, in: context))
        #expect(tidied.text == "What is new:\nNote to self: the wifi password for the cabin is on the back of the router.", "\(tidied.text)")
        #expect(tidied.removed == ["This note is from the person's own notes:"])
        // One supported sentence of four: too little of a briefing.
        #expect(BriefingContextBuilder.supported("The garage is booked. The team has been working on the bike's gears. "
            + "Everyone loved the concert. The sprint ended with a party.", in: context) == nil)
    }

    @Test("A briefing that names a note's subject is the model's to keep")
    func grounded() {
        #expect(BriefingContextBuilder.isGrounded("Good morning. The roofer's chimney quote came in at 1,800; the dentist moved you to Tuesday.", in: context))
        #expect(BriefingContextBuilder.mentions("The roofer's chimney quote came in at 1,800; the dentist moved you to Tuesday 3pm.", context: context) == 2)
        // Nothing given, nothing to speak of.
        #expect(BriefingContextBuilder.isGrounded("A quiet day.", in: BriefingContext(date: "2026-11-27", newNotes: [], threads: [], associations: [], tasks: [])))
    }
}

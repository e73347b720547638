import Foundation
@testable import SeleneShared
import Testing

/// What SmolLM2-135M wrote on the real-model tier (2026-11-26), and what a person reads of it.
@Suite("A small model's loops and hanging labels")
struct AnswerTidyTests {
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
}

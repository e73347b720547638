import Foundation
import SeleneShared
import Testing

@Suite("Briefing cards: what the briefing points at, numbered, each with the notes and question its conversation starts from")
struct BriefingCardsTests {
    static let day = Date(timeIntervalSince1970: 1_800_000_000)

    static func briefing() -> Briefing {
        let garden = NoteThread(id: 7, name: "Garden", summary: "Tomatoes", status: .active, momentum: 2.5, lastActivityAt: day, createdAt: day, noteCount: 4)
        let soil = note(1, "Garden soil needs compost", title: "Soil"), bike = note(2, "Bike chain and gears", title: "Bike")
        let link = Association(noteA: soil, noteB: bike, similarity: 0.714, threadA: ThreadRef(id: 7, name: "Garden"), threadB: nil)
        let order = ThreadTask(id: 30, threadId: 7, title: "Order compost", status: .open, sourceNoteId: 1, createdAt: day, completedAt: nil)
        let loose = ThreadTask(id: 31, threadId: nil, title: "Call the plumber", status: .open, sourceNoteId: nil, createdAt: day, completedAt: nil)
        return Briefing(id: 1, date: "2027-01-15", text: "Good morning.", author: .llm, createdAt: day, notes: [soil, bike],
                        threads: [garden], associations: [link], tasks: [order, loose])
    }

    @Test("Numbered in the order every screen shows them: threads, links, notes worth another look, tasks; each kind's notes and question")
    func cards() {
        let old = note(9, "Tomato varieties that did well", title: "Tomatoes 2025", at: Self.day.addingTimeInterval(-200 * 86_400))
        let cards = BriefingCards.cards(Self.briefing(), resurfaced: [Resurfacing.Suggestion(note: old, strength: 0.8, reason: "You wrote about this 6 months ago")])
        #expect(cards.map(\.number) == [1, 2, 3, 4, 5])
        #expect(cards.map(\.kind) == [.thread, .link, .resurfaced, .task, .task])
        // A thread's card takes its notes from the thread when it opens; the others carry theirs.
        #expect(cards[0].threadId == 7 && cards[0].noteIds.isEmpty && cards[0].detail == "Momentum 2.50 · 4 notes"
                && cards[0].question.contains("Garden thread"))
        #expect(cards[1].noteIds == [1, 2] && cards[1].title == "Soil ↔ Bike" && cards[1].detail == "71% alike" && cards[1].question.contains("“Soil”"))
        #expect(cards[2].noteIds == [9] && cards[2].detail == "You wrote about this 6 months ago")
        #expect(cards[3].taskId == 30 && cards[3].threadId == 7 && cards[3].noteIds == [1] && cards[3].question == "What do my notes say about “Order compost”?")
        #expect(cards[4].taskId == 31 && cards[4].noteIds.isEmpty && cards[4].threadId == nil)
        // The same briefing numbers the same way every time (the web and the terminal agree).
        #expect(BriefingCards.cards(Self.briefing(), resurfaced: []).map(\.kind) == [.thread, .link, .task, .task])
    }
}

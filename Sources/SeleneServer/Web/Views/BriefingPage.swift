import Foundation
import SeleneShared
import ServerCommon

/// The briefing, its cards each leading to a conversation.
extension Pages {
    static func briefing(_ briefing: Briefing?, cards: [BriefingCard], error: String?, context: PageContext) -> Node {
        func section(_ kind: BriefingCard.Kind) -> [BriefingCard] { cards.filter { $0.kind == kind } }
        func list(_ kind: BriefingCard.Kind, empty: String, row: @escaping (BriefingCard) -> [Node]) -> Node {
            let mine = section(kind)
            return mine.isEmpty ? el("p", ["class": "muted"], text(empty)) : el("ul", ["class": "list cards"], children: mine.map { card in
                el("li", ["class": "row card-\(card.kind.rawValue)", "id": "card-\(card.number)"],
                   children: row(card) + [el("a", ["class": "button quiet ask-about", "href": SiteURL.about(String(card.number)).path],
                                             text("Ask about this"))])
            })
        }
        return Layout.page("Briefing", tab: .briefing, context: context,
            el("div", ["class": "actions"], el("h1", [:], text("Briefing")),
               Layout.form(SiteURL.briefing.path, context: context, cls: "inline", Layout.button("Write it again", cls: "button quiet"))),
            error.map { el("p", ["class": "flash error", "role": "alert"], text($0)) } ?? nothing,
            briefing.map { b in group([
                el("p", ["class": "meta"], text("\(b.date) · "), text(b.author == .llm ? "written by your LLM" : "written from your notes (no LLM)")),
                el("div", ["class": "card briefing-text"], text(b.text)),
                el("h2", [:], text("Threads moving")),
                list(.thread, empty: "No active threads yet.") { card in
                    [el("a", ["class": "title", "href": SiteURL.thread(String(card.threadId ?? 0)).path], text(card.title)),
                     el("p", ["class": "meta"], text(card.detail ?? ""))]
                },
                el("h2", [:], text("Links across threads")),
                list(.link, empty: "No surprising links today.") { card in
                    guard let a = b.associations.first(where: { [$0.noteA.id, $0.noteB.id] == card.noteIds }) else { return [text(card.title)] }
                    return [el("a", ["href": SiteURL.note(String(a.noteA.id)).path], text(a.noteA.displayTitle)),
                            text(" (\(a.threadA?.name ?? "no thread")) ↔ "),
                            el("a", ["href": SiteURL.note(String(a.noteB.id)).path], text(a.noteB.displayTitle)),
                            text(" (\(a.threadB?.name ?? "no thread")) · \(Int((a.similarity * 100).rounded()))% alike")]
                },
                el("h2", [:], text("Open tasks")),
                // Ticked off here as on the Tasks page; each links to its thread.
                section(.task).isEmpty ? el("p", ["class": "muted"], text("Nothing open.")) :
                    el("ul", ["class": "list tasks cards"], children: section(.task).compactMap { card in
                        guard let task = b.tasks.first(where: { $0.id == card.taskId }) else { return nil }
                        let thread = task.threadId.flatMap { id in b.threads.first { $0.id == id }?.name ?? "its thread" }
                        return Layout.taskRow(task, back: "briefing", context: context, meta: group([
                            task.threadId.map { el("a", ["class": "chip", "href": SiteURL.thread(String($0)).path], text(thread ?? "its thread")) } ?? nothing,
                            el("a", ["class": "button quiet ask-about", "id": "card-\(card.number)", "href": SiteURL.about(String(card.number)).path], text("Ask about this")),
                        ]))
                    }),
                el("h2", [:], text("New notes (\(b.notes.count))")),
                el("ul", ["class": "list"], children: b.notes.prefix(20).map { Layout.noteRow($0) }),
                section(.resurfaced).isEmpty ? nothing : group([
                    el("h2", [:], text("Worth another look")),
                    list(.resurfaced, empty: "") { card in
                        [el("a", ["class": "title", "href": SiteURL.note(String(card.noteIds.first ?? 0)).path], text(card.title)),
                         el("p", ["class": "meta"], text(card.detail ?? ""))]
                    },
                ]),
            ]) } ?? nothing)
    }
}

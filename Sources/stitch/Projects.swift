import ArgumentParser
import Foundation
import StitchCore
import StitchKit

struct Projects: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Projects: canvases being stitched.", subcommands: [List.self, Start.self, Show.self, Status.self, Dates.self, Size.self, Notes.self, Remove.self], defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Projects, newest first.")
        @OptionGroup var output: JSONFlag
        func run() async throws {
            try await Stitch.run {
                let ctx = try Context.open()
                let canvases = Dictionary(try ctx.store.all(Canvas.self).map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
                let projects = try ctx.store.all(Project.self).sorted { $0.startedAt > $1.startedAt }
                let details = projects.map { ProjectDetail(project: $0, canvas: $0.canvasId.flatMap { canvases[$0] }) }
                if output.json { print(try Output.json(details)); return }
                if projects.isEmpty { print("No projects yet — Tap + to start a new project (stitch projects start CANVAS)"); return }
                print(Output.table(["ID", "PROJECT", "STATUS", "STARTED"], details.map {
                    [Output.short($0.project.id), $0.title, $0.project.status.displayName, String(Timestamp.string(from: $0.project.startedAt).prefix(10))]
                }))
            }
        }
    }

    struct Start: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Start a project from a canvas that has none, or without a canvas (--name: a chart, or nothing yet); or plan one (--plan).")
        @Argument(help: "Canvas id (prefix)") var canvas: String?
        @Option(help: "A project without a canvas, under this name (a project stitched from a chart: add the chart on its page)") var name: String?
        @Flag(help: "Plan it without starting: list its threads and see whether you can start it") var plan = false
        @Option(help: "The day you started it (YYYY-MM-DD), for a WIP begun earlier") var started: String?
        func run() async throws {
            try await Stitch.run {
                let ctx = try Context.open()
                var model = StartProjectModel()
                try model.load(from: ctx.store)
                if plan && started != nil { throw CLIError("A planned project isn't started: give --plan or --started, not both", code: .usage) }
                if let name {
                    guard canvas == nil else { throw CLIError("Give a canvas or --name, not both", code: .usage) }
                    let project = try model.start(named: name, planned: plan, startedAt: try parseDate(started), in: ctx.store)
                    print("\(plan ? "Planned" : "Started") \(project.title(canvas: nil)) (\(Output.short(project.id))). \(await ctx.syncSoon())")
                    return
                }
                guard let canvas else {
                    if let empty = model.emptyState { print("\(empty.title) — \(empty.message)"); return }
                    print("Canvases you can start:")
                    print(Output.table(["ID", "DESIGN", "DESIGNER"], model.available.map { [Output.short($0.id), $0.designName, $0.designer] }))
                    return
                }
                let c = try resolve(Canvas.self, canvas, in: ctx.store) { $0.designName }
                let project = try model.start(c.id, planned: plan, startedAt: try parseDate(started), in: ctx.store)
                print("\(plan ? "Planned" : "Started") \(c.designName) (\(Output.short(project.id))). \(await ctx.syncSoon())")
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "A project with its journal, sections and readiness.")
        @Argument var project: String
        @OptionGroup var output: JSONFlag
        func run() async throws {
            try await Stitch.run {
                let ctx = try Context.open()
                let p = try resolveProject(project, in: ctx.store)
                let model = try projectModel(p.id, in: ctx.store)
                if output.json {
                    struct Show: Encodable { var project: ProjectDetail; var journal: [JournalEntryDetail]; var sections: [ProjectSection]; var readiness: ProjectReadiness? }
                    print(try Output.json(Show(project: ProjectDetail(project: p, canvas: model.canvas),
                                               journal: model.journal.map { JournalEntryDetail(entry: $0.entry, images: $0.images) },
                                               sections: model.sections, readiness: model.readiness)))
                    return
                }
                print("\(model.title) — \(p.status.displayName)")
                let (size, mesh) = p.dimensions(canvas: model.canvas)
                let facts = [model.canvas.flatMap { $0.designer.isEmpty ? nil : "by \($0.designer)" }, mesh.map { "\($0) mesh" }, size]
                    .compactMap { $0 }.filter { !$0.isEmpty }
                if !facts.isEmpty { print(facts.joined(separator: " · ")) }
                if let notes = p.notes { print("Notes: \(notes)") }
                print("Started \(Timestamp.string(from: p.startedAt).prefix(10))"
                      + (p.finishingAt.map { ", at finishing \(Timestamp.string(from: $0).prefix(10))" } ?? "")
                      + (p.completedAt.map { ", completed \(Timestamp.string(from: $0).prefix(10))" } ?? ""))
                if let readiness = model.readiness { print("Readiness: \(readiness.color.rawValue) — \(readiness.summary)") }
                print("\nJournal:")
                if let empty = model.emptyJournal { print("  \(empty.title) — \(empty.message)") }
                for (entry, images) in model.journal {
                    print("  \(Output.short(entry.id))  \(Timestamp.string(from: entry.createdAt).prefix(10))  \(entry.notes)\(images.isEmpty ? "" : "  [\(images.count) photo(s)]")")
                    for (n, image) in images.enumerated() { print("      photo \(n + 1)  \(Output.short(image.id))") }
                }
            }
        }
    }

    struct Dates: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Set the days it was started, went to finishing and was completed (YYYY-MM-DD), as its status has them.")
        @Argument var project: String
        @Option var started: String?
        @Option var finishing: String?
        @Option var completed: String?
        func run() async throws {
            try await Stitch.run {
                let ctx = try Context.open()
                let p = try resolveProject(project, in: ctx.store)
                guard started != nil || finishing != nil || completed != nil else { throw CLIError("Give --started, --finishing or --completed", code: .usage) }
                var model = try projectModel(p.id, in: ctx.store)
                try model.setDates(started: try parseDate(started), finishing: try parseDate(finishing), completed: try parseDate(completed), in: ctx.store)
                let saved = model.project ?? p
                print("\(model.title): started \(Timestamp.string(from: saved.startedAt).prefix(10))"
                      + (saved.finishingAt.map { ", at finishing \(Timestamp.string(from: $0).prefix(10))" } ?? "")
                      + (saved.completedAt.map { ", completed \(Timestamp.string(from: $0).prefix(10))" } ?? "") + ". \(await ctx.syncSoon())")
            }
        }
    }

    struct Size: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show or set the size and mesh of a project without a canvas (one with a canvas has the canvas's).")
        @Argument var project: String
        @Option(help: "Its size, as you say it (\"14x18 in\")") var size: String?
        @Option(help: "Its mesh or count (13, 18)") var mesh: Int?
        @Flag(help: "Clear both") var clear = false
        func run() async throws {
            try await Stitch.run {
                let ctx = try Context.open()
                let p = try resolveProject(project, in: ctx.store)
                var model = try projectModel(p.id, in: ctx.store)
                func describe(_ size: String?, _ mesh: Int?) -> String {
                    [mesh.map { "\($0) mesh" }, size].compactMap { $0 }.joined(separator: " · ")
                }
                guard clear || size != nil || mesh != nil else {
                    let (size, mesh) = p.dimensions(canvas: model.canvas)
                    let known = describe(size, mesh)
                    print(known.isEmpty ? "No size or mesh yet." : known + (model.canvas == nil ? "" : " (its canvas's)"))
                    return
                }
                if clear && (size != nil || mesh != nil) { throw CLIError("Give --clear alone, or --size and --mesh", code: .usage) }
                try model.setSize(clear ? nil : (size ?? p.size), meshCount: clear ? nil : (mesh ?? p.meshCount), in: ctx.store)
                let saved = model.project ?? p
                let known = describe(saved.size, saved.meshCount)
                print((known.isEmpty ? "Cleared \(model.title)'s size and mesh." : "\(model.title): \(known).") + " \(await ctx.syncSoon())")
            }
        }
    }

    struct Notes: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a project's notes, or set them (\"\" clears them).")
        @Argument var project: String
        @Argument var text: String?
        func run() async throws {
            try await Stitch.run {
                let ctx = try Context.open()
                let p = try resolveProject(project, in: ctx.store)
                var model = try projectModel(p.id, in: ctx.store)
                guard let text else { print(p.notes ?? "No notes yet."); return }
                try model.setNotes(text.isEmpty ? nil : text, in: ctx.store)
                print(text.isEmpty ? "Cleared \(model.title)'s notes. \(await ctx.syncSoon())" : "Saved \(model.title)'s notes. \(await ctx.syncSoon())")
            }
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Set the status: planned, wip, at_finishing or completed (starting a planned one dates its start today).")
        @Argument var project: String
        @Argument var status: ProjectStatus
        func run() async throws {
            try await Stitch.run {
                let ctx = try Context.open()
                let p = try resolveProject(project, in: ctx.store)
                var model = try projectModel(p.id, in: ctx.store)
                try model.setStatus(status, in: ctx.store)
                print("\(model.title) is now \(status.displayName). \(await ctx.syncSoon())")
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rm", abstract: "Delete a project with its journal, sections and requirements.")
        @Argument var project: String
        func run() async throws {
            try await Stitch.run {
                let ctx = try Context.open()
                var model = try ctx.loadedProject(project)
                let title = model.title
                try model.delete(in: ctx.store)
                print("Deleted \(title) with its journal, sections, threads and patterns. \(await ctx.syncSoon())")
            }
        }
    }
}

/// The project an entry, section or requirement belongs to, loaded.
func projectModel(_ projectId: UUID, in store: LocalStore) throws -> ProjectDetailModel {
    try ProjectDetailModel.loaded(projectId, from: store)
}

extension Context {
    /// The model of a project named on the command line (its name or an id prefix), loaded:
    /// journal, sections, requirements and readiness.
    func loadedProject(_ reference: String) throws -> ProjectDetailModel {
        try projectModel(try resolveProject(reference, in: store).id, in: store)
    }
}

/// A journal entry's day: "2026-05-01" is that day at noon UTC (the web app's rule), a full
/// timestamp is itself.
func entryDate(_ text: String?) throws -> Date? {
    guard let date = try parseDate(text) else { return nil }
    return text?.count == 10 ? date.addingTimeInterval(12 * 3600) : date
}

struct Journal: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "A project's journal.", subcommands: [Add.self, Edit.self, Remove.self, Photos.self])

    /// An entry's photos: more added, one removed or moved (their ids are in `stitch projects show`).
    struct Photos: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "A journal entry's photos: add, rm, move.", subcommands: [Add.self, Remove.self, Move.self])

        static func photo(_ reference: String, in store: LocalStore) throws -> (JournalImage, JournalEntry) {
            let photo = try resolve(JournalImage.self, reference, in: store) { Output.short($0.id) }
            guard let entry = try store.find(JournalEntry.self, id: photo.entryId) else { throw CLIError("That photo's entry is gone", code: .notFound) }
            return (photo, entry)
        }

        static func order(_ model: ProjectDetailModel, entry: UUID) -> String {
            let photos = model.journal.first { $0.entry.id == entry }?.images ?? []
            return photos.isEmpty ? "The entry has no photos now." : "Photos now: " + photos.map { Output.short($0.id) }.joined(separator: ", ") + "."
        }

        struct Add: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Add photos to an entry, after its others.")
            @Argument(help: "The entry (its id or the start of it)") var entry: String
            @Argument(help: "Photos (JPEG, PNG, HEIC or WebP)") var files: [String]
            func run() async throws {
                try await Stitch.run {
                    guard !files.isEmpty else { throw CLIError("Give one photo or more", code: .usage) }
                    let images = try files.map { path -> Data in
                        guard let data = FileManager.default.contents(atPath: path) else { throw CLIError("Can't read \(path)", code: .notFound) }
                        return data
                    }
                    let ctx = try Context.open()
                    let e = try resolve(JournalEntry.self, entry, in: ctx.store) { String($0.notes.prefix(30)) }
                    var model = try projectModel(e.projectId, in: ctx.store)
                    try model.addPhotos(images, to: e.id, in: ctx.store)
                    print("Added \(images.count) photo(s). \(Photos.order(model, entry: e.id)) \(await ctx.syncSoon())")
                }
            }
        }

        struct Remove: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "rm", abstract: "Take a photo off its entry.")
            @Argument(help: "The photo (its id or the start of it)") var photo: String
            func run() async throws {
                try await Stitch.run {
                    let ctx = try Context.open()
                    let (image, entry) = try Photos.photo(photo, in: ctx.store)
                    var model = try projectModel(entry.projectId, in: ctx.store)
                    try model.removePhoto(image.id, in: ctx.store)
                    print("Removed the photo. \(Photos.order(model, entry: entry.id)) \(await ctx.syncSoon())")
                }
            }
        }

        struct Move: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Put a photo at another place among its entry's (1 is first).")
            @Argument(help: "The photo (its id or the start of it)") var photo: String
            @Option(help: "Its new place, from 1") var to: Int
            func run() async throws {
                try await Stitch.run {
                    let ctx = try Context.open()
                    let (image, entry) = try Photos.photo(photo, in: ctx.store)
                    var model = try projectModel(entry.projectId, in: ctx.store)
                    try model.movePhoto(image.id, to: to, in: ctx.store)
                    print("\(Photos.order(model, entry: entry.id)) \(await ctx.syncSoon())")
                }
            }
        }
    }

    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change a journal entry's text (its id is in `stitch projects show`).")
        @Argument var entry: String
        @Option var note: String?
        @Option(help: "The day it tells of (YYYY-MM-DD)") var date: String?
        func run() async throws {
            try await Stitch.run {
                let ctx = try Context.open()
                let e = try resolve(JournalEntry.self, entry, in: ctx.store) { String($0.notes.prefix(30)) }
                guard note != nil || date != nil else { throw CLIError("Give --note or --date", code: .usage) }
                var model = try projectModel(e.projectId, in: ctx.store)
                try model.editEntry(e.id, notes: note, date: try entryDate(date), in: ctx.store)
                print("Saved the entry. \(await ctx.syncSoon())")
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rm", abstract: "Delete a journal entry and its photos.")
        @Argument var entry: String
        func run() async throws {
            try await Stitch.run {
                let ctx = try Context.open()
                let e = try resolve(JournalEntry.self, entry, in: ctx.store) { String($0.notes.prefix(30)) }
                var model = try projectModel(e.projectId, in: ctx.store)
                let photos = model.journal.first { $0.entry.id == e.id }?.images.count ?? 0
                try model.deleteEntry(e.id, in: ctx.store)
                print("Deleted the entry\(photos == 0 ? "" : " and its \(photos) photo(s)"). \(await ctx.syncSoon())")
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a journal entry, with photos if you like.")
        @Option var project: String
        @Option var note: String
        @Option(parsing: .upToNextOption, help: "Photos (JPEG, PNG, HEIC or WebP)") var image: [String] = []
        @Option(help: "The day it tells of (YYYY-MM-DD), if not today") var date: String?
        func run() async throws {
            try await Stitch.run {
                let ctx = try Context.open()
                let p = try resolveProject(project, in: ctx.store)
                let images = try image.map { path -> Data in
                    guard let data = FileManager.default.contents(atPath: path) else { throw CLIError("Can't read \(path)", code: .notFound) }
                    return data
                }
                var model = try projectModel(p.id, in: ctx.store)
                try model.addEntry(notes: note, images: images, date: try entryDate(date), in: ctx.store)
                print("Added to \(model.title)'s journal\(images.isEmpty ? "" : " with \(images.count) photo(s)"). \(await ctx.syncSoon())")
            }
        }
    }
}

struct Sections: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "A project's sections.",
                                                    subcommands: [List.self, Add.self, Rename.self, Status.self, Notes.self, Move.self, Remove.self], defaultSubcommand: List.self)

    /// Runs a change to one section of a project (by name or id prefix), then prints what it says
    /// and how the sync went.
    static func edit(_ section: String, project: String,
                     _ change: @escaping (inout ProjectDetailModel, ProjectSection, LocalStore) throws -> String) async throws {
        try await Stitch.run {
            let ctx = try Context.open()
            var (model, s) = try find(section, project: project, in: ctx.store)
            let said = try change(&model, s, ctx.store)
            print("\(said) \(await ctx.syncSoon())")
        }
    }

    /// A section of the project by name or id prefix, and the project loaded.
    static func find(_ section: String, project: String, in store: LocalStore) throws -> (ProjectDetailModel, ProjectSection) {
        let p = try resolveProject(project, in: store)
        let model = try projectModel(p.id, in: store)
        let byName = model.sections.filter { $0.name.caseInsensitiveCompare(section) == .orderedSame }
        let matches = byName.isEmpty ? model.sections.filter { $0.id.text.lowercased().hasPrefix(section.lowercased()) } : byName
        guard !section.isEmpty, let match = matches.first else { throw CLIError("No section \(section) in \(model.title)", code: .notFound) }
        guard matches.count == 1 else { throw CLIError("\"\(section)\" matches several sections: use its id", code: .usage) }
        return (model, match)
    }

    struct Rename: AsyncParsableCommand {
        @Argument var project: String
        @Argument var section: String
        @Argument(help: "The new name") var name: String
        func run() async throws {
            try await Sections.edit(section, project: project) { model, s, store in
                try model.renameSection(s.id, to: name, in: store)
                return "Renamed \(s.name) to \(name)."
            }
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "not_started, in_progress or completed.")
        @Argument var project: String
        @Argument var section: String
        @Argument var status: SectionStatus
        func run() async throws {
            try await Sections.edit(section, project: project) { model, s, store in
                try model.setSectionStatus(s.id, to: status, in: store)
                return "\(s.name) is now \(status.displayName)."
            }
        }
    }

    struct Notes: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a section's notes, set them, or clear them (--clear).")
        @Argument var project: String
        @Argument var section: String
        @Argument(help: "The new notes (none: show them)") var notes: String?
        @Flag(help: "Remove the notes") var clear = false
        func run() async throws {
            guard !(clear && notes != nil) else { throw ValidationError("Give new notes or --clear, not both") }
            guard clear || notes != nil else {
                try await Stitch.run {
                    let ctx = try Context.open()
                    let (_, s) = try Sections.find(section, project: project, in: ctx.store)
                    print(s.notes ?? "\(s.name) has no notes.")
                }
                return
            }
            try await Sections.edit(section, project: project) { model, s, store in
                try model.setSectionNotes(s.id, to: clear ? nil : notes, in: store)
                return clear ? "Cleared \(s.name)'s notes." : "Noted on \(s.name)."
            }
        }
    }

    struct Move: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Move a section up or down one place.")
        enum Direction: String, ExpressibleByArgument { case up, down }
        @Argument var project: String
        @Argument var section: String
        @Argument var direction: Direction
        func run() async throws {
            try await Sections.edit(section, project: project) { model, s, store in
                try model.moveSection(s.id, by: direction == .up ? -1 : 1, in: store)
                return "Sections: \(model.sections.map(\.name).joined(separator: ", "))."
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rm", abstract: "Delete a section; its threads stay with the project.")
        @Argument var project: String
        @Argument var section: String
        func run() async throws {
            try await Sections.edit(section, project: project) { model, s, store in
                let kept = model.requirements.filter { $0.sectionId == s.id }.count
                try model.deleteSection(s.id, in: store)
                return "Deleted \(s.name)\(kept == 0 ? "" : "; its \(kept) thread(s) stay with the project")."
            }
        }
    }

    struct List: AsyncParsableCommand {
        @Argument var project: String
        @OptionGroup var output: JSONFlag
        func run() async throws {
            try await Stitch.run {
                let ctx = try Context.open()
                let p = try resolveProject(project, in: ctx.store)
                let model = try projectModel(p.id, in: ctx.store)
                if output.json { print(try Output.json(model.sections)); return }
                let colors = Dictionary((model.readiness?.sections ?? []).map { ($0.sectionId, $0.color.rawValue) }, uniquingKeysWith: { a, _ in a })
                print(Output.table(["ID", "SECTION", "STATUS", "READY", "NOTES"], model.sections.map {
                    [Output.short($0.id), $0.name, $0.status.displayName, colors[$0.id] ?? "", $0.notes.map { String($0.prefix(40)) } ?? ""]
                }))
            }
        }
    }

    struct Add: AsyncParsableCommand {
        @Argument var project: String
        @Argument var name: String
        func run() async throws {
            try await Stitch.run {
                let ctx = try Context.open()
                let p = try resolveProject(project, in: ctx.store)
                let order = (try ctx.store.all(ProjectSection.self).filter { $0.projectId == p.id }.map(\.sortOrder).max() ?? -1) + 1
                let now = ctx.store.clock()
                let s = try ctx.store.save(ProjectSection(projectId: p.id, name: name, sortOrder: order, createdAt: now, updatedAt: now))
                print("Added section \(s.name) (\(Output.short(s.id))). \(await ctx.syncSoon())")
            }
        }
    }
}

struct Needs: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "A project's thread requirements.", subcommands: [List.self, Add.self, Edit.self, Remove.self], defaultSubcommand: List.self)

    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change a requirement's quantity, colour name or notes (\"\" clears a text).")
        @Argument var requirement: String
        @Option var quantity: Int?
        @Option var color: String?
        @Option var notes: String?
        func run() async throws {
            try await Stitch.run {
                let ctx = try Context.open()
                let r = try resolve(ProjectThread.self, requirement, in: ctx.store) { "\($0.brand) \($0.number)" }
                guard quantity != nil || color != nil || notes != nil else { throw CLIError("Give --quantity, --color or --notes", code: .usage) }
                var model = try projectModel(r.projectId, in: ctx.store)
                try model.editRequirement(r.id, quantityNeeded: quantity, colorName: color, notes: notes, in: ctx.store)
                let saved = model.requirements.first { $0.id == r.id } ?? r
                print("Needs \(saved.quantityNeeded) × \(saved.brand) \(saved.number)\(saved.colorName.map { " \($0)" } ?? ""). \(await ctx.syncSoon())")
            }
        }
    }

    struct List: AsyncParsableCommand {
        @Argument var project: String
        @OptionGroup var output: JSONFlag
        func run() async throws {
            try await Stitch.run {
                let ctx = try Context.open()
                let p = try resolveProject(project, in: ctx.store)
                let model = try projectModel(p.id, in: ctx.store)
                let reqs = model.readiness?.requirements ?? []
                if output.json { print(try Output.json(reqs)); return }
                print(Output.table(["ID", "THREAD", "HAVE", "NEED", "BUY", ""], reqs.map {
                    [Output.short($0.requirementId), "\($0.brand) \($0.number)", String($0.have), String($0.needed), String($0.toBuy), $0.summary]
                }))
            }
        }
    }

    struct Add: AsyncParsableCommand {
        @Option var project: String
        @Argument(help: "BRAND NUMBER, or an inventory thread id") var thread: [String]
        @Option var quantity: Int = 1
        @Option var section: String?
        func run() async throws {
            try await Stitch.run {
                let ctx = try Context.open()
                let p = try resolveProject(project, in: ctx.store)
                let linked = try? resolveThread(thread, in: ctx.store)
                guard linked != nil || thread.count >= 2 else { throw CLIError("Give BRAND NUMBER or a thread id", code: .usage) }
                var sectionId: UUID?
                if let section {
                    let match = try ctx.store.all(ProjectSection.self).filter { $0.projectId == p.id }
                        .first { $0.name.caseInsensitiveCompare(section) == .orderedSame || $0.id.text.lowercased().hasPrefix(section.lowercased()) }
                    guard let match else { throw CLIError("No section \(section) in this project", code: .notFound) }
                    sectionId = match.id
                }
                let now = ctx.store.clock()
                let req = try ctx.store.save(ProjectThread(
                    projectId: p.id, sectionId: sectionId, threadId: linked?.id, brand: linked?.brand ?? thread.dropLast().joined(separator: " "),
                    number: linked?.number ?? thread.last!, colorName: linked?.colorName, quantityNeeded: quantity, createdAt: now, updatedAt: now))
                print("Needs \(req.quantityNeeded) × \(req.brand) \(req.number). \(await ctx.syncSoon())")
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rm")
        @Argument var requirement: String
        func run() async throws {
            try await Stitch.run {
                let ctx = try Context.open()
                let r = try resolve(ProjectThread.self, requirement, in: ctx.store) { "\($0.brand) \($0.number)" }
                try ctx.store.delete(ProjectThread.self, id: r.id)
                print("Removed. \(await ctx.syncSoon())")
            }
        }
    }
}

struct ReadinessCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "readiness", abstract: "Which sections you can start, and what to buy.")
    @Argument var project: String
    @OptionGroup var output: JSONFlag
    func run() async throws {
        try await Stitch.run {
            let ctx = try Context.open()
            let model = try ctx.loadedProject(project)
            guard let readiness = model.readiness else { return }
            if output.json { print(try Output.json(readiness)); return }
            print("\(model.title): \(readiness.color.rawValue). \(readiness.summary)")
            for section in readiness.sections {
                print("  \(section.name): \(section.color.rawValue)")
                for r in section.requirements { print("    \(r.brand) \(r.number): \(r.summary)") }
            }
            for r in readiness.unsectioned { print("  \(r.brand) \(r.number): \(r.summary)") }
        }
    }
}

struct ShoppingListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shopping-list", abstract: "What to buy for your active projects, and threads you add by hand.",
        discussion: "A thread several projects need is counted once. --add puts a thread on the list yourself (running low, or for a planned project); --dismiss sets a line aside until what the projects need of it changes.")
    @Option(parsing: .upToNextOption, help: "Mark bought: BRAND NUMBER QUANTITY") var buy: [String] = []
    @Option(parsing: .upToNextOption, help: "Add by hand: BRAND NUMBER QUANTITY") var add: [String] = []
    @Option(help: "With --add: why (\"running low\")") var note: String?
    @Option(parsing: .upToNextOption, help: "Set a line aside without buying: BRAND NUMBER") var dismiss: [String] = []
    @Flag(help: "Plain text to send or paste: by brand, a box to tick per thread") var text = false
    @OptionGroup var output: JSONFlag

    /// BRAND (may be several words) NUMBER QUANTITY.
    static func brandNumberQuantity(_ words: [String], option: String) throws -> (brand: String, number: String, quantity: Int) {
        guard words.count >= 3, let quantity = Int(words.last!) else { throw CLIError("Use --\(option) BRAND NUMBER QUANTITY", code: .usage) }
        return (words.dropLast(2).joined(separator: " "), words[words.count - 2], quantity)
    }

    func run() async throws {
        try await Stitch.run {
            let ctx = try Context.open()
            var model = ShoppingListModel()
            try model.load(from: ctx.store)
            if !buy.isEmpty {
                let (brand, number, quantity) = try Self.brandNumberQuantity(buy, option: "buy")
                let thread = try model.bought(brand: brand, number: number, quantity: quantity, in: ctx.store)
                print("Bought \(quantity) × \(thread.brand) \(thread.number): \(thread.quantity) in stock. \(await ctx.syncSoon())")
                return
            }
            if !add.isEmpty {
                let (brand, number, quantity) = try Self.brandNumberQuantity(add, option: "add")
                let line = try model.add(brand: brand, number: number, quantity: quantity, notes: note, in: ctx.store)
                print("On your shopping list: \(line.brand) \(line.number), \(line.quantity) by hand. \(await ctx.syncSoon())")
                return
            }
            if !dismiss.isEmpty {
                guard dismiss.count >= 2 else { throw CLIError("Use --dismiss BRAND NUMBER", code: .usage) }
                let brand = dismiss.dropLast().joined(separator: " "), number = dismiss.last!
                try model.dismiss(brand: brand, number: number, in: ctx.store)
                print("Set aside: \(brand) \(number) stays off the list until your projects need a different number of it. \(await ctx.syncSoon())")
                return
            }
            if output.json { print(try Output.json(ShoppingListResponse(items: model.items))); return }
            if text { print(ShoppingList.plainText(model.items, asOf: ctx.store.clock()), terminator: ""); return }
            if model.items.isEmpty { print("Nothing to buy: you have every thread your projects need."); return }
            print(Output.table(["BRAND", "NUMBER", "COLOUR", "NEED", "HAVE", "BUY", "FOR"], model.items.map {
                var forWhom = $0.projects.map { "\($0.title) \($0.toBuy)" }
                if $0.byHand > 0 { forWhom.append((["by hand \($0.byHand)"] + $0.handNotes).joined(separator: ": ")) }
                return [$0.brand, $0.number, $0.colorName ?? "", String($0.needed), String($0.have), String($0.toBuy), forWhom.joined(separator: ", ")]
            }))
            print("Projects at finishing are left out: they are stitched already; so are planned ones until you start them.")
        }
    }
}

import Fluent
import Foundation
import ServerCommon
import StitchCore
@testable import StitchServer
import Testing
import VaporTesting

/// A seeded randomized simulation: several offline-first devices of one user make random edits to
/// every kind of record, go offline, sync in random order, lose responses and retry; a device of a
/// second user works alongside. In the end every device equals the server, which equals a
/// last-write-wins oracle over everything the server accepted. The seed is printed so a failure
/// replays: STITCH_SIM_SEEDS=1234 swift test --filter SyncSimulation.
@Suite("Randomized sync simulation")
struct SyncSimulationTests {
    static var seeds: [UInt64] {
        if let raw = ProcessInfo.processInfo.environment["STITCH_SIM_SEEDS"] {
            return raw.split(separator: ",").compactMap { UInt64($0.trimmingCharacters(in: .whitespaces)) }
        }
        return [1, 2, 3, 4, 5, 6]
    }

    static var steps: Int { Int(ProcessInfo.processInfo.environment["STITCH_SIM_STEPS"] ?? "") ?? 120 }

    @Test(arguments: seeds)
    func converges(seed: UInt64) async throws {
        print("sync simulation seed \(seed), \(Self.steps) steps")
        try await withTestApp { app, clock in
            var rng = SeededRandom(seed: seed)
            let ann = try await TestUser.make(app)
            let bob = try await TestUser.make(app, email: "bob@example.com", name: "Bob")
            var keys: [String] = []
            for _ in 0..<3 { keys.append(try await ann.upload("/images", files: [Fixtures.file(Fixtures.png)]).decode(ImageUploadResponse.self).key) }
            let bobKey = try await bob.upload("/images", files: [Fixtures.file(Fixtures.jpeg)]).decode(ImageUploadResponse.self).key

            let devices = (0..<4).map { SimClient(name: "ann-\($0)", token: ann.token, app: app) }
            let bobDevice = SimClient(name: "bob", token: bob.token, app: app)
            var skew: [String: TimeInterval] = [:]
            for d in devices + [bobDevice] { skew[d.name] = Double(Int.random(in: -60_000...60_000, using: &rng)) / 1000 }
            /// Every version any device sent, to build the oracle from.
            var sent: [String: [SyncChange]] = [:]
            var canvasesWithProject = Set<UUID>()

            func now(_ d: SimClient) -> Date { (clock.now + skew[d.name]!).roundedToMilliseconds }

            func randomEdit(_ d: SimClient, images: [String]) throws {
                let at = now(d)
                func pick<R: SyncRecord>(_ type: R.Type) -> R? {
                    let live = d.live(type)
                    return live.isEmpty ? nil : live[Int.random(in: 0..<live.count, using: &rng)]
                }
                func delete<R: SyncRecord>(_ record: R) throws {
                    var r = record
                    r.deletedAt = at
                    r.updatedAt = at
                    try d.write(r)
                }
                switch Int.random(in: 0..<16, using: &rng) {
                case 0, 1:
                    try d.write(InventoryThread(brand: ["DMC", "Appleton", "Anchor"].randomElement(using: &rng)!,
                                                number: String(Int.random(in: 1...999, using: &rng)),
                                                quantity: Int.random(in: 0...5, using: &rng), createdAt: at, updatedAt: at))
                case 2, 3:
                    if var t = pick(InventoryThread.self) { t.quantity = Int.random(in: 0...9, using: &rng); t.updatedAt = at; try d.write(t) }
                case 4:
                    if let t = pick(InventoryThread.self) { try delete(t) }
                case 5:
                    try d.write(Canvas(designer: "Designer \(Int.random(in: 1...5, using: &rng))", designName: "Design \(Int.random(in: 1...99, using: &rng))",
                                       meshCount: [13, 18].randomElement(using: &rng), createdAt: at, updatedAt: at))
                case 6:
                    if var c = pick(Canvas.self) { c.notes = "note \(Int.random(in: 0...99, using: &rng))"; c.updatedAt = at; try d.write(c) }
                case 7:
                    // Only a canvas's first project is ever started, so no push is refused for it.
                    if let c = pick(Canvas.self), !canvasesWithProject.contains(c.id) {
                        canvasesWithProject.insert(c.id)
                        try d.write(Project(canvasId: c.id, startedAt: at, createdAt: at, updatedAt: at))
                    }
                case 8:
                    if var p = pick(Project.self) { p.setStatus(ProjectStatus.allCases.randomElement(using: &rng)!, at: at); p.updatedAt = at; try d.write(p) }
                case 9:
                    if let p = pick(Project.self) { try delete(p) }
                case 10:
                    if let p = pick(Project.self) {
                        try d.write(ProjectSection(projectId: p.id, name: ["Background", "Border", "Sky"].randomElement(using: &rng)!,
                                                   sortOrder: Int.random(in: 0...3, using: &rng), createdAt: at, updatedAt: at))
                    }
                case 11:
                    if let p = pick(Project.self) {
                        let section = d.live(ProjectSection.self).filter { $0.projectId == p.id }.randomElement(using: &rng)
                        let thread = Bool.random(using: &rng) ? pick(InventoryThread.self) : nil
                        try d.write(ProjectThread(projectId: p.id, sectionId: section?.id, threadId: thread?.id, brand: thread?.brand ?? "DMC",
                                                  number: thread?.number ?? "310", quantityNeeded: Int.random(in: 1...4, using: &rng), createdAt: at, updatedAt: at))
                    }
                case 12:
                    if var r = pick(ProjectThread.self) { r.quantityNeeded = Int.random(in: 1...9, using: &rng); r.updatedAt = at; try d.write(r) }
                case 13:
                    if let p = pick(Project.self) { try d.write(JournalEntry(projectId: p.id, notes: "Stitched \(Int.random(in: 1...99, using: &rng)) rows", createdAt: at, updatedAt: at)) }
                case 14:
                    if let e = pick(JournalEntry.self), let key = images.randomElement(using: &rng) {
                        try d.write(JournalImage(entryId: e.id, imageKey: key, sortOrder: Int.random(in: 0...5, using: &rng), createdAt: at, updatedAt: at))
                    }
                default:
                    if let s = pick(ProjectSection.self) { try delete(s) } else if let e = pick(JournalEntry.self) { try delete(e) }
                }
            }

            func sync(_ d: SimClient) async throws {
                for key in d.pending { if let c = d.local[key] { sent[key, default: []].append(c) } }
                // Sometimes the response is lost and the request retried; sometimes small pages.
                try await d.sync(limit: Bool.random(using: &rng) ? 7 : nil, replay: Int.random(in: 0..<5, using: &rng) == 0)
            }

            for _ in 0..<Self.steps {
                clock.advance(by: Double(Int.random(in: 1...3000, using: &rng)) / 1000)
                let actor = Int.random(in: 0..<10, using: &rng)
                if actor == 9 {
                    try randomEdit(bobDevice, images: [bobKey])
                    if Bool.random(using: &rng) { try await sync(bobDevice) }
                    continue
                }
                let d = devices[actor % devices.count]
                if Int.random(in: 0..<3, using: &rng) == 0 { try await sync(d) } else { try randomEdit(d, images: keys) }
                // Now and then the web app edits a thread directly.
                if Int.random(in: 0..<25, using: &rng) == 0, let t = d.live(InventoryThread.self).first {
                    let res = try await ann.sendObject(.PUT, "/threads/\(t.id)", ["quantity": Int.random(in: 0...20, using: &rng)])
                    if res.status == .ok { sent[SimClient.key(.thread, t.id), default: []].append(try SyncChange(record: try res.decode(InventoryThread.self))) }
                }
            }

            // Quiesce: everyone syncs until nothing is pending anywhere.
            for _ in 0..<4 { for d in devices + [bobDevice] { try await sync(d) } }
            for d in devices + [bobDevice] {
                #expect(d.pending.isEmpty, "seed \(seed): \(d.name) still has \(d.pending.count) pending")
                #expect(d.rejections.isEmpty, "seed \(seed): \(d.name) had rejections \(d.rejections)")
            }

            let server = try await liveServerState(userId: ann.id, db: app.db)
            #expect(server.count >= 5, "seed \(seed): the simulation made too little to be meaningful")
            // The oracle: for every record, the last write (by the shared rule) of all it was sent.
            var oracle: [String: String] = [:]
            for (key, versions) in sent {
                let winner = versions.max { ConflictRule.resolve(incoming: SimClient.stamp($1), current: SimClient.stamp($0)) == .incoming }!
                if winner.deletedAt == nil, winner.action == .upsert, let fp = fingerprint(winner), isAnns(key, devices: devices, sent: sent) {
                    oracle[key] = fp
                }
            }
            for d in devices {
                let local = d.local.filter { $0.value.action == .upsert && $0.value.deletedAt == nil }.compactMapValues(fingerprint)
                #expect(local == server, "seed \(seed): \(d.name) differs from the server")
            }
            let bobServer = try await liveServerState(userId: bob.id, db: app.db)
            let bobLocal = bobDevice.local.filter { $0.value.action == .upsert && $0.value.deletedAt == nil }.compactMapValues(fingerprint)
            #expect(bobLocal == bobServer, "seed \(seed): bob differs from the server")
            #expect(Set(bobServer.keys).isDisjoint(with: server.keys))
            // Ann's devices never saw Bob's records.
            for d in devices { #expect(Set(d.local.keys).isDisjoint(with: bobServer.keys)) }
            let annOracle = oracle.filter { !bobServer.keys.contains($0.key) }
            #expect(annOracle == server, "seed \(seed): the server differs from the last-write-wins oracle")
        }
    }

    func isAnns(_ key: String, devices: [SimClient], sent: [String: [SyncChange]]) -> Bool {
        devices.contains { $0.local[key] != nil }
    }

    func fingerprint(_ change: SyncChange) -> String? {
        func fp<R: SyncRecord>(_ type: R.Type) -> String? { (try? change.record(as: R.self)).map(ConflictRule.fingerprint) }
        switch change.type {
        case .thread: return fp(InventoryThread.self)
        case .canvas: return fp(Canvas.self)
        case .project: return fp(Project.self)
        case .projectSection: return fp(ProjectSection.self)
        case .projectThread: return fp(ProjectThread.self)
        case .journalEntry: return fp(JournalEntry.self)
        case .journalImage: return fp(JournalImage.self)
        case .pattern: return fp(Pattern.self)
        case .shoppingLine: return fp(ShoppingLine.self)
        }
    }

    /// The user's live records as the database holds them, fingerprinted.
    func liveServerState(userId: UUID, db: any Database) async throws -> [String: String] {
        var state: [String: String] = [:]
        func add<M: RecordModel>(_ type: M.Type) async throws {
            for model in try await Records.all(M.self, userId: userId, on: db) {
                state[SimClient.key(M.Record.entityType, model.id!)] = ConflictRule.fingerprint(model.record)
            }
        }
        try await add(ThreadModel.self)
        try await add(CanvasModel.self)
        try await add(ProjectModel.self)
        try await add(SectionModel.self)
        try await add(RequirementModel.self)
        try await add(JournalEntryModel.self)
        try await add(JournalImageModel.self)
        return state
    }
}

import Fluent
import Foundation
import StitchCore
@testable import StitchServer
import Testing
import VaporTesting

extension TestUser {
    func export() async throws -> (json: String, backup: AccountBackup) {
        let res = try await send(.GET, "/account/export")
        try #require(res.status == .ok, "\(res.text)")
        return (res.text, try StitchJSON.decode(AccountBackup.self, from: Data(buffer: res.body)))
    }

    func restore(_ json: String) async throws -> RestoreSummary {
        let res = try await send(.POST, "/account/restore", raw: json)
        try #require(res.status == .ok, "\(res.status) \(res.text)")
        return try StitchJSON.decode(RestoreSummary.self, from: Data(buffer: res.body))
    }
}

extension WebClient {
    /// Posts a multipart form with one file, the page's CSRF token included.
    func upload(_ path: String, from page: String, fields: [String: String] = [:], file: (name: String, filename: String, data: Data)?) async throws -> TestingHTTPResponse {
        var all = fields
        all["_csrf"] = try await csrf(from: page)
        let boundary = "----web-\(UUID().wireText)"
        var body = Data()
        for (name, value) in all {
            body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8))
        }
        if let file {
            body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(file.name)\"; filename=\"\(file.filename)\"\r\nContent-Type: application/octet-stream\r\n\r\n".utf8))
            body.append(file.data)
            body.append(Data("\r\n".utf8))
        }
        body.append(Data("--\(boundary)--\r\n".utf8))
        var headers = HTTPHeaders()
        headers.replaceOrAdd(name: .cookie, value: cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; "))
        headers.replaceOrAdd(name: .contentType, value: "multipart/form-data; boundary=\(boundary)")
        return try await app.testing().sendRequest(.POST, path, headers: headers, body: ByteBuffer(data: body))
    }

    /// The value of a hidden or text field on a page.
    static func field(_ name: String, in page: String) -> String? {
        if let range = page.range(of: "name=\"\(name)\" value=\"") {
            return String(page[range.upperBound...].prefix { $0 != "\"" })
        }
        guard let open = page.range(of: "<textarea name=\"\(name)\""), let end = page[open.upperBound...].range(of: ">") else { return nil }
        return String(page[end.upperBound...].prefix { $0 != "<" })
    }
}

@Suite("Backup and restore: a whole account, pictures included, between servers and accounts")
struct BackupRestoreTests {
    @Test("A backup restored on another server ends equal there — every record, every picture — and every device of the account pulls it")
    func betweenServers() async throws {
        try await withTestApp { a, _ in
            let ann = try await FilledAccount.make(a, email: "ann@example.com")
            let (json, original) = try await ann.user.export()
            #expect(original.format == AccountBackup.currentFormat)
            #expect(original.recordCount == 12 && original.pictures.count == 4)
            #expect(!json.contains(ann.canvas.id.uuidString) && json.contains(ann.canvas.id.wireText))

            try await withTestApp { b, _ in
                let there = try await TestUser.make(b, email: "ann@example.com")
                let summary = try await there.restore(json)
                #expect(summary.issues.isEmpty && summary.renumbered == 0, "\(summary.lines)")
                #expect(summary.pictures == { var p = RestoreSummary.Pictures(); p.stored = 4; return p }())
                #expect(EntityType.allCases.map { summary.count($0).added } == [2, 2, 1, 1, 1, 1, 2, 1, 1])
                let (_, restored) = try await there.export()
                #expect(restored.threads == original.threads && restored.canvases == original.canvases && restored.projects == original.projects)
                #expect(restored.sections == original.sections && restored.requirements == original.requirements)
                #expect(restored.journalEntries == original.journalEntries)
                #expect(restored.journalImages == original.journalImages, "\(restored.journalImages) vs \(original.journalImages)")
                #expect(restored.patterns == original.patterns && restored.patterns.count == 1)
                #expect(restored.shoppingLines == original.shoppingLines && restored.shoppingLines.map(\.quantity) == [2])
                #expect(Dictionary(uniqueKeysWithValues: restored.pictures.map { ($0.key, $0.bytes) }) ==
                        Dictionary(uniqueKeysWithValues: original.pictures.map { ($0.key, $0.bytes) }))
                let image = try await there.send(.GET, "/images/\(try #require(ann.canvas.imageKey))")
                #expect(image.status == .ok && Data(buffer: image.body) == Fixtures.jpeg)

                // It went in through the sync rules: a device of the account pulls all of it.
                let pull = try await there.send(.POST, "/sync", json: SyncRequest(cursor: nil, clientId: UUID(), changes: []))
                #expect(try StitchJSON.decode(SyncResponse.self, from: Data(buffer: pull.body)).changes.count == 12)

                // Again: nothing new, the pictures already there.
                let again = try await there.restore(json)
                #expect(EntityType.allCases.map { again.count($0).unchanged } == [2, 2, 1, 1, 1, 1, 2, 1, 1])
                #expect(again.pictures.alreadyHere == 4 && again.pictures.stored == 0)
                // A thread changed since the backup keeps its change (last write wins).
                let thread = original.threads[0]
                let edit = try await there.sendObject(.PUT, "/threads/\(thread.id.wireText)", ["quantity": 9])
                #expect(edit.status == .ok)
                let third = try await there.restore(json)
                #expect(third.count(.thread).keptNewer == 1 && third.count(.thread).unchanged == 1)
                #expect(try await there.get("/threads/\(thread.id.wireText)", as: InventoryThread.self).quantity == 9)
            }
        }
    }

    @Test("Restored into another account on the same server: ids in use get new ones, every reference follows them, pictures belong to the new owner")
    func sameServerOtherAccount() async throws {
        try await withTestApp { app, _ in
            let ann = try await FilledAccount.make(app, email: "ann@example.com")
            let (json, original) = try await ann.user.export()
            let bob = try await TestUser.make(app, email: "bob@example.com", name: "Bob")
            let summary = try await bob.restore(json)
            #expect(summary.renumbered == 12 && summary.issues.isEmpty, "\(summary.lines)")
            #expect(summary.pictures.stored == 4)
            let (_, copy) = try await bob.export()
            #expect(copy.recordCount == 12 && copy.pictures.count == 4)
            #expect(Set(copy.threads.map(\.id)).isDisjoint(with: original.threads.map(\.id)))
            let nutcracker = try #require(copy.canvases.first { $0.designName == "Nutcracker" })
            #expect(copy.projects.map(\.canvasId) == [nutcracker.id])
            #expect(copy.sections.map(\.projectId) == copy.projects.map(\.id))
            #expect(copy.requirements.map(\.sectionId) == copy.sections.map(\.id))
            #expect(copy.requirements.map(\.threadId) == [copy.threads.first { $0.number == "310" }?.id])
            #expect(Set(copy.journalImages.map(\.entryId)) == Set(copy.journalEntries.map(\.id)))
            #expect(copy.patterns.map(\.projectId) == copy.projects.map(\.id) && copy.patterns.map(\.title) == ["Nutcracker chart"])
            for key in copy.imageKeys {
                #expect(try await bob.send(.GET, "/images/\(key)").status == .ok)
                #expect(try await ann.user.send(.GET, "/images/\(key)").status == .notFound)
            }
            #expect(Set(copy.pictures.map(\.bytes)) == Set(original.pictures.map(\.bytes)))
            // Ann's account is as it was.
            #expect(try await ann.user.export().backup.threads == original.threads)
        }
    }

    @Test("Records the server can't use are each named and the rest restored; a file that isn't a backup is refused and changes nothing")
    func partialAndRefused() async throws {
        try await withTestApp { app, clock in
            let user = try await TestUser.make(app)
            let now = Timestamp.string(from: clock.now)
            let good = UUID(), canvas = UUID(), entry = UUID()
            let body = """
            {"format":"stitchuation-export-v1","exportedAt":"\(now)",
             "threads":[{"id":"\(good.wireText)","brand":"DMC","number":"310","fiberType":"wool","quantity":1,"createdAt":"\(now)","updatedAt":"\(now)"},
                        {"id":"\(UUID().wireText)","number":"999","fiberType":"wool","quantity":1,"createdAt":"\(now)","updatedAt":"\(now)"},
                        {"id":"nope","brand":"DMC","number":"1","createdAt":"\(now)","updatedAt":"\(now)"},
                        {"id":"\(UUID().wireText)","brand":"DMC","number":"2","fiberType":"wool","quantity":-3,"createdAt":"\(now)","updatedAt":"\(now)"}],
             "canvases":[{"id":"\(canvas.wireText)","designer":"Lee","designName":"Owl","imageKey":"gone.jpg","createdAt":"\(now)","updatedAt":"\(now)"}],
             "journalEntries":[],
             "journalImages":[{"id":"\(UUID().wireText)","entryId":"\(entry.wireText)","imageKey":"gone.png","sortOrder":0,"createdAt":"\(now)","updatedAt":"\(now)"}],
             "pictures":[{"key":"x.png","contentType":"image/png","data":"not base64!"},{"key":"t.txt","contentType":"text/plain","data":"\(Fixtures.text.base64EncodedString())"}]}
            """
            let summary = try await user.restore(body)
            #expect(summary.count(.thread).added == 1 && summary.count(.thread).refused == 3)
            #expect(summary.count(.canvas).added == 1 && summary.count(.journalImage).refused == 1)
            #expect(summary.pictures.missing == 2 && summary.pictures.stored == 0)
            let messages = summary.issues.map(\.description)
            #expect(messages.contains { $0.contains("brand") }, "\(messages)")
            #expect(messages.contains("thread: threads[2] has no valid id; not restored"))
            #expect(messages.contains { $0.contains("Quantity can't be negative") })
            #expect(messages.contains("canvas \(canvas.wireText): its picture is not in the backup; restored without it"))
            #expect(messages.contains { $0.hasPrefix("journalImage") && $0.contains("not restored") })
            #expect(messages.contains("Picture x.png is not base64 data: not restored"))
            #expect(messages.contains { $0.hasPrefix("Picture t.txt:") })
            #expect(try await user.get("/threads", as: [InventoryThread].self).map(\.id) == [good])
            #expect(try await user.get("/canvases", as: [Canvas].self).map(\.imageKey) == [nil])

            let version = try await user.syncVersion()
            for (bad, status) in [(#"{"format":"something-else"}"#, HTTPStatus.badRequest), (#"{"format":"stitchuation-export-v2","threads":[5]}"#, .badRequest),
                                  (#"{"format":"stitchuation-export-v2","threads":{}}"#, .badRequest), ("[1,2]", .badRequest), ("not json", .badRequest),
                                  (#"{"format":"stitchuation-export-v2","pictures":[{"key":"k"}]}"#, .badRequest),
                                  (#"{"format":"stitchuation-export-v2","exportedAt":"yesterday"}"#, .badRequest)] {
                let res = try await user.send(.POST, "/account/restore", raw: bad)
                #expect(res.status == status && res.error != nil, "\(bad): \(res.status) \(res.text)")
            }
            var headers = HTTPHeaders()
            headers.bearerAuthorization = BearerAuthorization(token: user.token)
            headers.contentType = .plainText
            let mislabelled = try await app.testing().sendRequest(.POST, "/account/restore", headers: headers, body: ByteBuffer(string: body))
            #expect(mislabelled.status == .unsupportedMediaType)
            #expect(try await user.syncVersion() == version)
        }
    }

    @Test("Restore in the web app: upload the file, see what became of it")
    func webRestore() async throws {
        try await withTestApp { app, _ in
            let ann = try await FilledAccount.make(app, email: "ann@example.com")
            let (json, _) = try await ann.user.export()
            _ = try await TestUser.make(app, email: "bob@example.com", name: "Bob")
            let browser = WebClient(app: app)
            try await browser.signIn("bob@example.com")
            let settings = try await browser.request(.GET, "/app/settings").text
            #expect(settings.contains("/app/settings/restore") && settings.contains("/app/settings/import") && settings.contains("/app/settings/delete-account"))
            let bad = try await browser.upload("/app/settings/restore", from: "/app/settings/restore", file: ("backup", "x.json", Data("{}".utf8)))
            #expect(bad.status == .badRequest && bad.text.contains("a Stitchuation backup (format: A backup names its format)"))
            let res = try await browser.upload("/app/settings/restore", from: "/app/settings/restore", file: ("backup", "stitchuation-export.json", Data(json.utf8)))
            #expect(res.status == .ok, "\(res.text)")
            #expect(res.text.contains("Threads: 2 added") && res.text.contains("Pictures: 4 stored, 0 already here"))
            #expect(res.text.contains("12 record(s) got a new id"))
            // The download is the same backup, indented for people.
            let download = try await browser.request(.GET, "/app/settings/export.json")
            #expect(download.headers.first(name: .contentDisposition)?.contains("stitchuation-export.json") == true)
            let backup = try StitchJSON.decode(AccountBackup.self, from: Data(buffer: download.body))
            #expect(backup.recordCount == 12 && backup.pictures.count == 4)
        }
    }
}

@Suite("CSV import and export in the web app")
struct WebImportTests {
    @Test("Upload, preview (columns used and not, unreadable values by line and column, what would be added and merged), confirm; nothing is written before")
    func previewAndConfirm() async throws {
        try await withTestApp { app, _ in
            let user = try await TestUser.make(app)
            try await user.thread("DMC", "310", quantity: 2)
            let browser = WebClient(app: app)
            try await browser.signIn("ann@example.com")
            let csv = Data("\u{FEFF}Manufacturer;No.;Colour;Qty;Bin\r\nDMC;310;Black;3;A1\r\nAnchor;403;Noir é;1;A2\r\nDMC;321;Red;lots;A3\r\n".utf8)
            let preview = try await browser.upload("/app/settings/import", from: "/app/settings/import",
                                                   fields: ["kind": "threads", "onDuplicate": "add"], file: ("file", "stash.csv", csv))
            #expect(preview.status == .ok, "\(preview.text)")
            let page = preview.text
            #expect(page.contains("semicolon-separated, UTF-8 with a byte-order mark"))
            #expect(page.contains("not imported") && page.contains(">Bin<"))
            #expect(page.contains("“lots” is not a whole number") && page.contains("D (Qty)"))
            #expect(page.contains("Would add 1 threads, merge 1 into ones you have"))
            #expect(page.contains("quantity 2 → 5"))
            #expect(try await user.get("/threads", as: [InventoryThread].self).count == 1)

            let file = try #require(WebClient.field("file", in: page))
            let confirm = try await browser.upload("/app/settings/import/confirm", from: "/app/settings/import",
                                                   fields: ["kind": "threads", "onDuplicate": "add", "filename": "stash.csv", "file": file], file: nil)
            #expect(confirm.status == .seeOther, "\(confirm.text)")
            let flash = try #require(confirm.headers.first(name: .location))
            #expect(flash.hasPrefix("/app/inventory") && flash.removingPercentEncoding?.contains("1 row(s) with values that couldn't be read") == true)
            let threads = try await user.get("/threads", as: [InventoryThread].self)
            #expect(threads.map { "\($0.brand) \($0.number) \($0.quantity)" } == ["Anchor 403 1", "DMC 310 5"])
            #expect(threads.first { $0.brand == "Anchor" }?.colorName == "Noir é")
        }
    }

    @Test("A file without quantities needs the box ticked; canvases import too; the CSV download opens with accents and re-imports as the same inventory")
    func quantitiesCanvasesAndRoundTrip() async throws {
        try await withTestApp { app, _ in
            let user = try await TestUser.make(app)
            let browser = WebClient(app: app)
            try await browser.signIn("ann@example.com")
            let noQuantities = Data("brand,number,colour\nDMC,310,Noir\nDMC,B5200,Blanc cassé\n".utf8)
            let preview = try await browser.upload("/app/settings/import", from: "/app/settings/import", fields: ["kind": "threads"], file: ("file", "a.csv", noQuantities))
            #expect(preview.text.contains("every thread would have 0 in stock") && preview.text.contains("name=\"acceptDefaults\""))
            let file = try #require(WebClient.field("file", in: preview.text))
            var confirm = try await browser.upload("/app/settings/import/confirm", from: "/app/settings/import", fields: ["kind": "threads", "file": file], file: nil)
            #expect(confirm.status == .badRequest && confirm.text.contains("Tick the box"))
            #expect(try await user.get("/threads", as: [InventoryThread].self).isEmpty)
            confirm = try await browser.upload("/app/settings/import/confirm", from: "/app/settings/import",
                                               fields: ["kind": "threads", "file": file, "acceptDefaults": "yes"], file: nil)
            #expect(confirm.status == .seeOther)
            #expect(try await user.get("/threads", as: [InventoryThread].self).count == 2)

            let canvases = Data("Designer,Design,Mesh,Date acquired\nMelissa Shirley,Nutcracker,13 mesh,2023-12-05\n".utf8)
            let canvasPreview = try await browser.upload("/app/settings/import", from: "/app/settings/import", fields: ["kind": "canvases"], file: ("file", "c.csv", canvases))
            let canvasFile = try #require(WebClient.field("file", in: canvasPreview.text))
            confirm = try await browser.upload("/app/settings/import/confirm", from: "/app/settings/import", fields: ["kind": "canvases", "file": canvasFile], file: nil)
            #expect(confirm.headers.first(name: .location)?.hasPrefix("/app/stash") == true)
            #expect(try await user.get("/canvases", as: [Canvas].self).map(\.meshCount) == [13])

            let download = try await browser.request(.GET, "/app/settings/export/threads")
            #expect(download.headers.first(name: .contentType) == "text/csv; charset=utf-8")
            let bytes = Data(buffer: download.body)
            #expect(Array(bytes.prefix(3)) == [0xEF, 0xBB, 0xBF] && String(decoding: bytes, as: UTF8.self).contains("Blanc cassé"))
            #expect(try await browser.request(.GET, "/app/settings/export/nothing").status == .notFound)

            let other = try await TestUser.make(app, email: "bob@example.com", name: "Bob")
            let bob = WebClient(app: app)
            try await bob.signIn("bob@example.com")
            let again = try await bob.upload("/app/settings/import", from: "/app/settings/import", fields: ["kind": "threads"], file: ("file", "threads.csv", bytes))
            #expect(!again.text.contains("not imported") && !again.text.contains("can't be read"))
            let againFile = try #require(WebClient.field("file", in: again.text))
            _ = try await bob.upload("/app/settings/import/confirm", from: "/app/settings/import", fields: ["kind": "threads", "file": againFile, "acceptDefaults": "yes"], file: nil)
            func key(_ t: InventoryThread) -> String { "\(t.brand)|\(t.number)|\(t.colorName ?? "")|\(t.fiberType)|\(t.quantity)" }
            #expect(try await other.get("/threads", as: [InventoryThread].self).map(key) == (try await user.get("/threads", as: [InventoryThread].self)).map(key))
        }
    }
}

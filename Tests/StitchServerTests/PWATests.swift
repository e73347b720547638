import Foundation
import StitchCore
@testable import StitchServer
import Testing
import VaporTesting

@Suite("The web app installs and keeps pages to read offline")
struct PWATests {
    @Test("Manifest, icon, worker and offline page are served; the worker keeps exactly the pages a stitcher reads in a shop")
    func installable() async throws {
        try await withTestApp { app, _ in
            let manifest = try await app.send(.GET, "/app/manifest.webmanifest")
            #expect(manifest.status == .ok && manifest.headers.contentType?.description == "application/manifest+json")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(buffer: manifest.body)) as? [String: Any])
            #expect(json["start_url"] as? String == "/app/inventory" && json["scope"] as? String == "/app/" && json["display"] as? String == "standalone")
            #expect(try await app.send(.GET, "/app/static/icon.svg").text.hasPrefix("<svg"))
            let worker = try await app.send(.GET, "/app/sw.js")
            #expect(worker.status == .ok && worker.headers.first(name: "Service-Worker-Allowed") == "/app/" && worker.text.contains("stitch-pages-v1"))
            let offline = try await app.send(.GET, "/app/offline")
            #expect(offline.status == .ok && offline.text.contains("re offline"))
            // Every shell file the worker installs answers (an install fails on one that doesn't).
            for path in [SiteURL.stylesheet.path, SiteURL.script.path, SiteURL.icon.path, SiteURL.offline.path] {
                #expect(try await app.send(.GET, path).status == .ok, "\(path)")
            }
            let readable = try NSRegularExpression(pattern: PWA.readable)
            func kept(_ path: String) -> Bool { readable.firstMatch(in: path, range: NSRange(path.startIndex..., in: path)) != nil }
            let id = UUID().wireText
            for path in ["/app/inventory", "/app/stash", "/app/stash/\(id)", "/app/projects", "/app/projects/\(id)", "/app/shopping"] {
                #expect(kept(path), "\(path) is read offline")
            }
            for path in ["/app/settings", "/app/signin", "/app/stash/new", "/app/projects/start", "/app/inventory/new", "/app/settings/export.json"] {
                #expect(!kept(path), "\(path) is not kept")
            }
            // Every signed-in page links the manifest.
            let page = try await app.send(.GET, "/app/signin").text
            #expect(page.contains("rel=\"manifest\" href=\"/app/manifest.webmanifest\""))
        }
    }
}

import Vapor

/// The installable web app's own addresses, served the same way by both servers: its icon and
/// manifest (an hour in caches), its service worker (`ServiceWorker.script`: always fetched
/// fresh, so a new one is picked up at once, and allowed the whole web app's scope), and the page
/// the worker answers for a page it hasn't kept (each app's own words; no form, so no session).
public enum InstallableApp {
    /// A path and what it answers.
    public struct Part: Sendable {
        public var path: [PathComponent]
        public var body: String
        public init(_ path: [PathComponent], _ body: String) { self.path = path; self.body = body }
    }

    public static func routes(on routes: any RoutesBuilder, icon: Part, manifest: Part, worker: Part, offline: Part, scope: String = "/app/") {
        routes.get(icon.path) { _ in asset(icon.body, type: "image/svg+xml") }
        routes.get(manifest.path) { _ in asset(manifest.body, type: "application/manifest+json") }
        routes.get(worker.path) { _ in
            Response(status: .ok, headers: ["Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "no-cache", "Service-Worker-Allowed": scope],
                     body: .init(string: worker.body))
        }
        routes.get(offline.path) { _ in
            Response(status: .ok, headers: ["Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-cache"], body: .init(string: offline.body))
        }
    }

    /// A file of the app that changes only with a release.
    public static func asset(_ text: String, type: String) -> Response {
        Response(status: .ok, headers: ["Content-Type": type, "Cache-Control": "public, max-age=3600"], body: .init(string: text))
    }
}

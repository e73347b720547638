import Foundation

/// The service worker both web apps install (Selene's and Stitchuation's): it keeps the shell
/// (style, script, icon, the offline page) and a copy of the pages last opened that `readable`
/// matches, so they can be read with no network; everything else goes to the network as usual.
/// Pages and the shell are fetched fresh whenever the network answers (a new release shows at
/// once) and taken from the copies when it doesn't, or not within a few seconds. A page may ask for the copies to be
/// forgotten (`postMessage('forget-pages')`, or deleting the `pages` cache itself): signing out
/// on a shared phone leaves nothing of the account behind.
public enum ServiceWorker {
    /// - Parameters:
    ///   - name: the caches' prefix ("stitch" → `stitch-shell-v1`, `stitch-pages-v1`).
    ///   - shell: the files kept at install, the offline page among them.
    ///   - readable: a JavaScript regular expression (source) for the paths kept for reading offline.
    ///   - offline: the page answered for a page that isn't kept.
    ///   - keep: how many pages are kept, the oldest dropped first.
    ///   - pictures: a JavaScript regular expression (source) for picture addresses (path and
    ///     query) kept once seen, for pages read offline: they never change (content-addressed),
    ///     so they come from the copy first. The small sizes, not the originals.
    ///   - keepPictures: how many pictures are kept, the oldest dropped first.
    ///   - navigateDeadline: milliseconds a page's request may stay unanswered before a kept copy
    ///     of it is shown instead (marked `<html data-kept-copy>`); the request goes on and keeps
    ///     its answer for the next visit.
    ///   - signedOut: a JavaScript regular expression (source) for the pages a browser lands on
    ///     signed out (signing out, or a session the server ended, leads there): opening one
    ///     forgets every kept page and picture before it is answered, whatever its script does.
    ///   - extra: more of the worker (Selene's push notifications).
    public static func script(name: String, shell: [String], readable: String, offline: String, keep: Int = 60,
                              pictures: String? = nil, keepPictures: Int = 500, navigateDeadline: Int = 4000,
                              signedOut: String, extra: String = "") -> String {
        let files = shell.map { "'\($0)'" }.joined(separator: ", ")
        return """
        const SHELL = '\(name)-shell-v1', PAGES = '\(name)-pages-v1', PICTURES = '\(name)-pictures-v1', KEEP = \(keep), KEEP_PICTURES = \(keepPictures);
        const SHELL_FILES = [\(files)];
        const READABLE = /\(readable)/;
        const PICTURE = \(pictures.map { "/\($0)/" } ?? "null");
        const NAVIGATE_DEADLINE = \(navigateDeadline), NAVIGATE_GIVE_UP = 30000;
        const SIGNED_OUT = /\(signedOut)/;
        const OFFLINE = '\(offline)';

        """ + body + extra
    }

    /// The worker's code (`Resources/service-worker.js`), the same for both apps.
    static let body: String = {
        guard let url = Bundle.module.url(forResource: "service-worker", withExtension: "js"), let text = try? String(contentsOf: url, encoding: .utf8) else {
            preconditionFailure("service-worker.js is missing from ServerCommon's resources: install the *.resources folders beside the binary")
        }
        return text
    }()
}

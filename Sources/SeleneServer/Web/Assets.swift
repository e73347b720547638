import Foundation
import ServerCommon
import Vapor

/// The web app's stylesheet and script (Resources/web), made once: compressed (gzip, Brotli) and
/// named by their content (`StaticAsset`). Phone first: 48 px targets, a bottom tab bar, a
/// sidebar from 768 px; dark ink and moonlight. Everything works without the script, which
/// adds the streamed chat answer, voice input and delete confirmations.
enum Assets {
    static let css = StaticAsset(resource: "selene", "css", in: .module, contentType: "text/css; charset=utf-8")
    static let js = StaticAsset(resource: "selene", "js", in: .module, contentType: "text/javascript; charset=utf-8")
    static let byName: [(name: String, asset: StaticAsset)] = [("selene.css", css), ("selene.js", js)]
}

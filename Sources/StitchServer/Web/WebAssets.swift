import Foundation
import ServerCommon
import StitchDesign
import Vapor

/// The web app's script and stylesheet, made once: compressed (gzip, Brotli) and named by their
/// content, so pages ask for `app.<hash>.js` and a browser keeps it until it changes
/// (`StaticAsset`).
enum WebAssets {
    /// Resources/web/app.js: small vanilla JavaScript that only enhances (every form works without it).
    static let script = StaticAsset(resource: "app", "js", in: .module, contentType: "text/javascript; charset=utf-8")
    /// Made from the design tokens (`Stylesheet`).
    static let stylesheet = StaticAsset(Stylesheet.css(fontsBase: "/" + SiteURL.font("").components.dropLast().joined(separator: "/")),
                                        contentType: "text/css; charset=utf-8")

    /// The served files by their plain names, in /app/static.
    static let byName: [(name: String, asset: StaticAsset)] = [("app.js", script), ("app.css", stylesheet)]

    static func routes(_ routes: any RoutesBuilder) {
        StaticAsset.serve(byName, under: ["app", "static"], on: routes)
    }
}

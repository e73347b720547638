import ServerCommon
import Fluent
import Foundation
import Crypto
import NIOConcurrencyHelpers
import StitchCore
import StitchDesign
import Vapor

/// Checks the CSRF token of every state-changing request and signs the user in from the session
/// cookie. Pages that need a user redirect to sign-in when there is none.
///
/// Who is asking is known before anything they send is read: a POST to a page that needs a user
/// and comes without a live session is answered without reading its body, and a stranger's form
/// post (sign-in, sign-up) is read only up to `anonymousMaxBody`. Where the token can be checked
/// before the body — the page's script sends it as a header, an upload form in its address
/// (`Layout.form(multipart:)`) — it is; a plain form's token is in the body, read then.
struct WebAuth: AsyncMiddleware {
    let required: Bool
    /// The most a signed-in person's form post may send (the application's default when nil).
    /// The body is collected here, before the CSRF check reads it: middleware runs before a route
    /// collects its body, so an upload larger than what arrives with the request head would
    /// otherwise have none yet.
    var maxBody: ByteCount? = nil
    /// The most read of a post from someone not signed in: sign-in, sign-up and reset forms.
    static let anonymousMaxBody = 64 * 1024

    func respond(to req: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        let user = try await WebSession.user(for: req)
        if req.method == .POST {
            if user == nil && required { return Self.toSignIn(req) }
            // A form carries the token as a field; the page's script (app.js, sending what was
            // changed offline) as a header; an upload form in its address.
            var submitted = req.headers.first(name: BrowserSession.csrfHeader) ?? req.query[String.self, at: BrowserSession.csrfField]
            if submitted == nil {
                let limit = user == nil ? Self.anonymousMaxBody : (maxBody ?? req.application.routes.defaultMaxBodySize).value
                if let data = req.body.data {
                    guard data.readableBytes <= limit else { throw Abort(.payloadTooLarge) }
                } else {
                    _ = try await req.body.collect(max: limit).get()
                }
                submitted = try FormData.parse(req).fields[BrowserSession.csrfField]
            }
            try WebSession.verifyCSRF(req, submitted: submitted)
        }
        if let user {
            req.auth.login(user)
        } else if required {
            return Self.toSignIn(req)
        }
        let response = try await next.respond(to: req)
        WebSession.attachCSRF(req, to: response)
        return response
    }

    /// To the sign-in page. A browser that still sent a session cookie had its session ended by
    /// the server (signed out elsewhere, a new password, the account taken back): it forgets the
    /// cookie and the pictures in its HTTP cache, as on signing out.
    static func toSignIn(_ req: Request) -> Response {
        let response = req.redirect(to: SiteURL.signIn.path)
        if req.browserSession.session(req) != nil {
            req.browserSession.clearSession(req: req, on: response)
            response.headers.replaceOrAdd(name: "Clear-Site-Data", value: BrowserSession.clearCache)
        }
        return response
    }
}

/// Stitchuation's signed page messages (`FlashSigner`).
enum Flash {
    static let signer = FlashSigner()
    static func use(serverSecret: String) { signer.use(serverSecret: serverSecret) }
    static func query(_ text: String) -> [String: String?] { signer.query(text) }
    static func read(_ req: Request) -> String? { signer.read(req) }
}

struct WebController: RouteCollection {
    /// The web app's route table, a group of pages each: what anyone may open, signing in, the
    /// inventory and stash, projects, the shopping list and settings.
    func boot(routes: any RoutesBuilder) throws {
        routes.get(use: home)
        WebAssets.routes(routes)
        // The installable app: manifest, icon, the worker that keeps pages for reading offline, and
        // the page it answers for one it hasn't kept.
        InstallableApp.routes(on: routes, icon: .init(SiteURL.icon.route, PWA.icon), manifest: .init(SiteURL.manifest.route, PWA.manifest),
                              worker: .init(SiteURL.worker.route, PWA.worker), offline: .init(SiteURL.offline.route, PWA.offlinePage))
        routes.get(SiteURL.font(":name").route, use: font)
        routes.get(SiteURL.image(":key").route, use: image)
        signInRoutes(routes)
        inventoryAndStashRoutes(routes)
        projectRoutes(routes)
        shoppingAndSettingsRoutes(routes)
    }

    /// Signing in, up and out, passwords, linked sign-ins and recently deleted.
    private func signInRoutes(_ routes: any RoutesBuilder) {
        let open = routes.grouped(WebAuth(required: false))
        open.get(SiteURL.signIn.route, use: signInPage)
        open.grouped(ClientThrottle()).post(SiteURL.signIn.route, use: signIn)
        open.get(SiteURL.signUp.route, use: signUpPage)
        open.grouped(ClientThrottle()).post(SiteURL.signUp.route, use: signUp)
        open.post(SiteURL.signOut.route, use: signOut)
        // Answers 401 as JSON, not the sign-in page, to the script that calls it.
        open.post(SiteURL.sync.route, use: sync)
        open.get(SiteURL.forgotPassword.route, use: forgotPasswordPage)
        open.grouped(ClientThrottle()).post(SiteURL.forgotPassword.route, use: forgotPassword)
        open.get(SiteURL.resetPassword.route, use: resetPasswordPage)
        open.grouped(ClientThrottle()).post(SiteURL.resetPassword.route, use: resetPassword)
        open.post(SiteURL.appleSignIn.route, use: appleStart)
        // Apple posts back cross-site: no CSRF cookie arrives; the signed state stands in for it.
        routes.post(SiteURL.appleCallback.route, use: appleCallback)
        open.post(SiteURL.oauthSignIn(":provider").route, use: oauthStart)
        routes.get(SiteURL.oauthCallback(":provider").route, use: oauthCallback)
        open.get(SiteURL.linkSignIn.route, use: linkSignInPage)
        open.grouped(ClientThrottle()).post(SiteURL.linkSignIn.route, use: linkSignIn)
        open.grouped(ClientThrottle()).post(SiteURL.mailLinkSignIn.route, use: mailLinkSignIn)
        open.get(SiteURL.confirmLinkSignIn.route, use: confirmLinkSignInPage)
        open.grouped(ClientThrottle()).post(SiteURL.confirmLinkSignIn.route, use: confirmLinkSignIn)
        open.get(SiteURL.confirmAddress.route, use: confirmAddress)
        routes.grouped(WebAuth(required: true)).post(SiteURL.confirmAddressAgain.route, use: confirmAddressAgain)
        routes.grouped(WebAuth(required: true)).get(SiteURL.recentlyDeleted.route, use: recentlyDeleted)
        routes.grouped(WebAuth(required: true)).post(SiteURL.restoreDeleted(":type", ":id").route, use: restoreDeleted)
        routes.grouped(WebAuth(required: true)).get(SiteURL.deletedPhoto(":type", ":id").route, use: deletedPhoto)
    }

    /// The inventory, scanning, and the stash with its canvases' colours.
    private func inventoryAndStashRoutes(_ routes: any RoutesBuilder) {
        let app = routes.grouped(WebAuth(required: true))
        func uploads(_ max: ByteCount) -> any RoutesBuilder { routes.grouped(WebAuth(required: true, maxBody: max)) }
        app.get(SiteURL.inventory.route, use: inventory)
        app.get(SiteURL.inventoryData.route, use: inventoryData)
        app.get(SiteURL.newThread.route, use: newThreadPage)
        app.post(SiteURL.newThread.route, use: createThread)
        app.get(SiteURL.thread(":id").route, use: editThreadPage)
        app.post(SiteURL.thread(":id").route, use: updateThread)
        app.post(SiteURL.deleteThread(":id").route, use: deleteThread)
        app.post(SiteURL.stepThread(":id").route, use: stepThread)
        app.post(SiteURL.matchCatalog.route, use: matchCatalog)

        app.get(SiteURL.scan.route, use: scanPage)
        uploads("42mb").on(.POST, SiteURL.scan.route, body: .collect(maxSize: "42mb"), use: scan)
        app.get(SiteURL.stash.route, use: stash)
        app.get(SiteURL.newCanvas.route, use: newCanvasPage)
        uploads("42mb").on(.POST, SiteURL.newCanvas.route, body: .collect(maxSize: "42mb"), use: createCanvas)
        app.get(SiteURL.canvas(":id").route, use: canvasPage)
        app.get(SiteURL.editCanvas(":id").route, use: editCanvasPage)
        uploads("42mb").on(.POST, SiteURL.editCanvas(":id").route, body: .collect(maxSize: "42mb"), use: updateCanvas)
        app.get(SiteURL.deleteCanvas(":id").route, use: deleteCanvasPage)
        app.post(SiteURL.deleteCanvas(":id").route, use: deleteCanvas)
        app.get(SiteURL.canvasPalette(":id").route, use: canvasPalettePage)
        app.post(SiteURL.canvasPalette(":id").route, use: confirmCanvasPalette)
        app.post(SiteURL.canvasPaletteSize(":id").route, use: saveCanvasPaletteSize)
    }

    /// Projects: their journal, photos, patterns, sections and requirements.
    private func projectRoutes(_ routes: any RoutesBuilder) {
        let app = routes.grouped(WebAuth(required: true))
        func uploads(_ max: ByteCount) -> any RoutesBuilder { routes.grouped(WebAuth(required: true, maxBody: max)) }
        app.get(SiteURL.projects.route, use: projects)
        app.get(SiteURL.startProject.route, use: startProjectPage)
        app.post(SiteURL.startProject.route, use: startProject)
        app.get(SiteURL.project(":id").route, use: projectPage)
        app.post(SiteURL.projectStatus(":id").route, use: projectStatus)
        app.post(SiteURL.deleteProject(":id").route, use: deleteProject)
        uploads("100mb").on(.POST, SiteURL.newEntry(":id").route, body: .collect(maxSize: "100mb"), use: addEntry)
        app.get(SiteURL.photo(":id", ":imageId").route, use: photo)
        uploads("60mb").on(.POST, SiteURL.patterns(":id").route, body: .collect(maxSize: "60mb"), use: uploadPattern)
        app.get(SiteURL.pattern(":id", ":patternId").route, use: patternViewer)
        app.get(SiteURL.patternPage(":id", ":patternId", 0).route, use: patternPageImage)
        app.get(SiteURL.patternThumb(":id", ":patternId", 0).route, use: patternThumbImage)
        app.get(SiteURL.patternStatus(":id", ":patternId").route, use: patternStatus)
        app.post(SiteURL.patternLastPage(":id", ":patternId").route, use: savePatternPage)
        app.post(SiteURL.deletePattern(":id", ":patternId").route, use: deletePattern)
        app.get(SiteURL.patternKey(":id", ":patternId").route, use: patternKey)
        app.post(SiteURL.patternKey(":id", ":patternId").route, use: confirmPatternKey)
        app.post(SiteURL.newSection(":id").route, use: addSection)
        app.post(SiteURL.newRequirement(":id").route, use: addRequirement)
        app.post(SiteURL.deleteRequirement(":id", ":reqId").route, use: deleteRequirement)
        app.get(SiteURL.requirement(":id", ":reqId").route, use: requirementPage)
        app.post(SiteURL.requirement(":id", ":reqId").route, use: updateRequirement)
        app.post(SiteURL.section(":id", ":sectionId").route, use: updateSection)
        app.post(SiteURL.moveSection(":id", ":sectionId").route, use: moveSection)
        app.post(SiteURL.deleteSection(":id", ":sectionId").route, use: deleteSection)
        app.post(SiteURL.entry(":id", ":entryId").route, use: updateEntry)
        app.post(SiteURL.deleteEntry(":id", ":entryId").route, use: deleteEntry)
        uploads("100mb").on(.POST, SiteURL.entryPhotos(":id", ":entryId").route, body: .collect(maxSize: "100mb"), use: addEntryPhotos)
        app.post(SiteURL.deleteEntryPhoto(":id", ":entryId", ":imageId").route, use: deleteEntryPhoto)
        app.post(SiteURL.moveEntryPhoto(":id", ":entryId", ":imageId").route, use: moveEntryPhoto)
        app.post(SiteURL.projectNotes(":id").route, use: projectNotes)
        app.post(SiteURL.projectPicture(":id").route, use: projectPicture)
        app.post(SiteURL.projectDates(":id").route, use: projectDates)
        app.post(SiteURL.projectSize(":id").route, use: projectSize)
    }

    /// The shopping list, settings, export, import, restore and the account.
    private func shoppingAndSettingsRoutes(_ routes: any RoutesBuilder) {
        let app = routes.grouped(WebAuth(required: true))
        func uploads(_ max: ByteCount) -> any RoutesBuilder { routes.grouped(WebAuth(required: true, maxBody: max)) }
        app.get(SiteURL.shopping.route, use: shopping)
        app.get(SiteURL.shoppingText.route, use: shoppingText)
        app.post(SiteURL.buy.route, use: buy)
        app.post(SiteURL.shoppingAdd.route, use: addToShoppingList)
        app.post(SiteURL.shoppingDismiss.route, use: dismissShoppingLine)
        app.get(SiteURL.settings.route, use: settings)
        app.get(SiteURL.exportJSON.route, use: exportJSON)
        app.get(SiteURL.exportCSV(":kind").route, use: exportCSV)
        app.get(SiteURL.importFile.route, use: importPage)
        uploads("12mb").on(.POST, SiteURL.importFile.route, body: .collect(maxSize: "12mb"), use: importPreview)
        uploads("20mb").on(.POST, SiteURL.importConfirm.route, body: .collect(maxSize: "20mb"), use: importConfirm)
        app.get(SiteURL.restore.route, use: restorePage)
        uploads(AccountService.maxRestoreBody).on(.POST, SiteURL.restore.route, body: .collect(maxSize: AccountService.maxRestoreBody), use: restore)
        app.get(SiteURL.password.route, use: passwordPage)
        app.post(SiteURL.password.route, use: changePassword)
        app.get(SiteURL.deleteAccount.route, use: deleteAccountPage)
        app.post(SiteURL.deleteAccount.route, use: deleteAccount)
        app.post(SiteURL.removeSignIn(":provider").route, use: removeSignIn)
        app.get(SiteURL.mergeAccount.route, use: mergePage)
        app.grouped(ClientThrottle()).post(SiteURL.mergeAccount.route, use: merge)
    }

    // MARK: Plumbing

    func context(_ req: Request, flash: String? = nil) async throws -> PageContext {
        var profile: UserProfile?
        if let user = req.auth.get(AuthenticatedUser.self), let model = try await UserModel.find(user.id, on: req.db) {
            profile = model.profile(providers: [])
        }
        return PageContext(user: profile, csrf: WebSession.csrfToken(for: req), flash: flash ?? Flash.read(req))
    }

    func html(_ node: Node, status: HTTPStatus = .ok, headers extra: HTTPHeaders = [:]) -> Response {
        let response = Response(status: status, headers: ["Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store",
                                                         "X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY",
                                                         "Referrer-Policy": "same-origin"])
        for (name, value) in extra { response.headers.replaceOrAdd(name: name, value: value) }
        response.body = .init(string: node.render())
        return response
    }

    func redirect(_ url: SiteURL, flash: String? = nil) -> Response {
        let response = Response(status: .seeOther)
        response.headers.replaceOrAdd(name: .location, value: flash.map { url.path(query: Flash.query($0)) } ?? url.path)
        return response
    }

    /// Back to a page of this site (a path from `localPath`), with a message, keeping its `#anchor`.
    func redirect(to path: String, flash: String) -> Response {
        let parts = path.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        var c = URLComponents()
        c.queryItems = Flash.query(flash).sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        let response = Response(status: .seeOther)
        response.headers.replaceOrAdd(name: .location, value: String(parts[0]) + "?" + (c.percentEncodedQuery ?? "")
                                      + (parts.count > 1 ? "#" + parts[1] : ""))
        return response
    }

    /// Field errors from a failed write, for showing beside the form.
    func fieldErrors(_ error: any Error) -> [String: String]? {
        switch error {
        case let e as APIError where [.badRequest, .conflict, .payloadTooLarge, .unsupportedMediaType, .unprocessableEntity].contains(e.status):
            return e.fields ?? ["form": e.reason]
        case let e as ValidationError: return e.fields
        case let e as DecodingError:
            let (field, message) = DecodingFailure.describe(e)
            return [field ?? "form": message]
        default: return nil
        }
    }

    static func int(_ text: String?) -> Int?? {
        guard let text else { return .some(nil) }
        return Int(text).map { .some($0) } ?? nil
    }

    // MARK: Static

    @Sendable func home(req: Request) async throws -> Response {
        if try await WebSession.user(for: req) != nil { return req.redirect(to: SiteURL.inventory.path) }
        return req.redirect(to: SiteURL.signIn.path)
    }

    @Sendable func font(req: Request) async throws -> Response {
        guard let data = Self.fonts[req.parameters.get("name") ?? ""] else { throw Abort(.notFound) }
        return Response(status: .ok, headers: ["Content-Type": "font/woff2", "Cache-Control": "public, max-age=31536000, immutable"], body: .init(buffer: data))
    }

    /// The bundled fonts by file name, read once (on the first font request), not on every request:
    /// WOFF2, subset to Latin (Source Serif 4 at text optical size, weights 200–700), 92 KB for
    /// both where the whole TTFs were 1.5 MB (Resources/fonts/SUBSET.md says how they were made).
    private static let fonts: [String: ByteBuffer] = {
        var fonts: [String: ByteBuffer] = [:]
        for name in ["PlayfairDisplay", "SourceSerif4"] {
            if let url = Bundle.module.url(forResource: name, withExtension: "woff2", subdirectory: "fonts"), let data = try? Data(contentsOf: url) {
                fonts[name + ".woff2"] = ByteBuffer(data: data)
            }
        }
        return fonts
    }()

    /// Pictures for the signed-in browser; anyone else gets a 404.
    @Sendable func image(req: Request) async throws -> Response {
        let key = req.parameters.get("key") ?? ""
        guard let user = try await WebSession.user(for: req), let image = try await Images.served(key, userId: user.id, on: req.db)
        else { throw Abort(.notFound) }
        // Pages get the sizes made for them: upright, no metadata, a HEIC as a JPEG.
        return try await PictureSizes.response(for: image, derived: true, req: req)
    }

    // MARK: Account

    @Sendable func signInPage(req: Request) async throws -> Response {
        if req.auth.has(AuthenticatedUser.self) { return redirect(.inventory) }
        var ctx = try await context(req)
        ctx.appleSignIn = req.config.apple?.webRedirectURI != nil
        ctx.oauthSignIn = oauthProviders(req)
        return html(SignInPage(mode: .signIn, message: ctx.flash).render(ctx))
    }

    @Sendable func signUpPage(req: Request) async throws -> Response {
        html(SignInPage(mode: .signUp).render(try await context(req)))
    }

    @Sendable func signIn(req: Request) async throws -> Response {
        let form = try FormData.parse(req)
        do {
            let user = try await AuthService.checkPassword(email: form["email"] ?? "", password: form.fields["password"] ?? "", caller: req.caller)
            let response = redirect(.inventory)
            try await WebSession.start(userId: user.id!, req: req, response: response)
            return response
        } catch let error as APIError {
            let page = SignInPage(mode: .signIn, email: form["email"] ?? "", message: error.reason)
            return html(page.render(try await context(req)), status: error.status, headers: error.headers)
        }
    }

    @Sendable func signUp(req: Request) async throws -> Response {
        let form = try FormData.parse(req)
        let body = RegisterRequest(email: form["email"] ?? "", password: form.fields["password"] ?? "", displayName: form["displayName"] ?? "")
        do {
            let (user, _) = try await AuthService.createAccount(body, caller: req.caller) { _, _ in () }
            let response = redirect(.inventory, flash: "Welcome to Stitchuation, \(user.displayName)!")
            try await WebSession.start(userId: user.id!, req: req, response: response)
            return response
        } catch {
            guard let errors = fieldErrors(error) else { throw error }
            let page = SignInPage(mode: .signUp, email: body.email, displayName: body.displayName, errors: errors,
                                  message: (error as? APIError)?.status == .conflict ? "An account with this email already exists" : nil)
            return html(page.render(try await context(req)), status: (error as? APIError)?.status ?? .badRequest)
        }
    }

    /// The confirmation mailed at registration, opened: the address is proven (only its owner
    /// reads that mail). Opening it twice, or by a mail scanner, proves the same thing again.
    @Sendable func confirmAddress(req: Request) async throws -> Response {
        do {
            let user = try await AddressProof.confirm(token: req.queryText("token") ?? "", caller: req.caller)
            return redirect(req.auth.get(AuthenticatedUser.self) == nil ? .signIn : .settings, flash: "Thank you: \(user.email ?? "your address") is confirmed.")
        } catch let error as APIError {
            return redirect(.signIn, flash: error.reason)
        }
    }

    /// "Email me the confirmation link" (Settings): the link again, counted against the address
    /// as reset links are.
    @Sendable func confirmAddressAgain(req: Request) async throws -> Response {
        guard let user = try await UserModel.find(try req.user.id, on: req.db) else { throw WebError.signInRequired }
        do {
            try await AddressProof.mailAgain(to: user, caller: req.caller)
            return redirect(.settings, flash: "We've sent the link to \(user.email ?? "your address"). Open it within a week.")
        } catch let error as APIError {
            return redirect(.settings, flash: error.reason)
        }
    }

    /// Settings → Recently deleted: the last 30 days' deletes, each with Restore.
    @Sendable func recentlyDeleted(req: Request) async throws -> Response {
        let deleted = try await Deletions.list(userId: try req.user.id, now: req.now, db: req.db)
        return html(RecentlyDeletedPage(deleted: deleted).render(try await context(req)))
    }

    /// A recently deleted canvas's or project's photo, for that page alone (`Deletions.photo`).
    @Sendable func deletedPhoto(req: Request) async throws -> Response {
        guard let type = req.parameters.get("type").flatMap(EntityType.init(rawValue:)),
              let id = req.parameters.get("id").flatMap(UUID.init(uuidString:)),
              let image = try await Deletions.photo(type, id, userId: try req.user.id, now: req.now, db: req.db)
        else { throw Abort(.notFound) }
        return try await PictureSizes.response(for: image, derived: true, req: req)
    }

    @Sendable func restoreDeleted(req: Request) async throws -> Response {
        guard let type = req.parameters.get("type").flatMap(EntityType.init(rawValue:)), let id = req.parameters.get("id").flatMap(UUID.init(uuidString:)) else {
            return redirect(.recentlyDeleted, flash: "That can't be restored.")
        }
        do {
            let title = try await Deletions.restore(type, id, userId: try req.user.id, now: req.now, app: req.application, db: req.db)
            return redirect(.recentlyDeleted, flash: "Restored \(title). Your devices get it back when they sync.")
        } catch let error as APIError {
            return redirect(.recentlyDeleted, flash: error.fields?.values.first ?? error.reason)
        }
    }

    @Sendable func signOut(req: Request) async throws -> Response {
        let response = redirect(.signIn)
        try await WebSession.end(req: req, response: response)
        // The pictures the browser keeps in its HTTP cache (a year) go with the session; the
        // worker's copies go when the sign-in page opens (`PWA.worker`).
        response.headers.replaceOrAdd(name: "Clear-Site-Data", value: BrowserSession.clearCache)
        return response
    }

    @Sendable func settings(req: Request) async throws -> Response {
        let userId = try req.user.id
        guard let user = try await UserModel.find(userId, on: req.db) else { throw WebError.signInRequired }
        let methods = try await AccountLinks.methods(of: userId, db: req.db)
        var page = SettingsPage(user: user.profile(providers: methods.methods.map(\.provider)), counts: try await Self.counts(userId, db: req.db))
        page.methods = methods
        page.canConfirmAddress = user.email != nil && user.emailProvenAt == nil && req.config.smtp != nil && req.config.publicURL != nil
        page.addable = (req.config.apple?.webRedirectURI != nil ? [(IdentityProvider.apple, SiteURL.appleSignIn)] : [])
            + oauthProviders(req).compactMap { name, _ in IdentityProvider(rawValue: name).map { ($0, SiteURL.oauthSignIn(name)) } }
        return html(page.render(try await context(req)))
    }
}

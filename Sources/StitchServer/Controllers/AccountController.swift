import Fluent
import Foundation
import StitchCore
import Vapor

/// The account itself: a new password, a restore from a backup, and deletion.
struct AccountController: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        let signedIn = routes.grouped(RequireUser())
        signedIn.post("auth", "password", use: changePassword)
        signedIn.get("account", "export", use: export)
        signedIn.on(.POST, "account", "restore", body: .collect(maxSize: AccountService.maxRestoreBody), use: restore)
        signedIn.get("account", "sign-in-methods", use: signInMethods)
        signedIn.grouped(ClientThrottle()).post("account", "sign-in-methods", use: addSignInMethod)
        signedIn.delete("account", "sign-in-methods", ":provider", use: removeSignInMethod)
        signedIn.grouped(ClientThrottle()).post("account", "merge", use: merge)
        // Its own check of the token: a repeated request, once the account is gone, answers the
        // same as the first.
        routes.delete("auth", "account", use: deleteAccount)
    }

    @Sendable
    func changePassword(req: Request) async throws -> HTTPStatus {
        try await AccountService.changePassword(try req.decodeJSON(ChangePasswordRequest.self), user: try req.user, caller: req.caller)
        return .noContent
    }

    /// The whole account, pictures inline: what `restore` takes back, here or on another server.
    @Sendable
    func export(req: Request) async throws -> Response {
        let backup = try await AccountService.backup(userId: try req.user.id, pictures: true, app: req.application, db: req.db)
        return try jsonResponse(backup, headers: ["Cache-Control": "no-store"])
    }

    @Sendable
    func restore(req: Request) async throws -> Response {
        let document: BackupDocument
        do {
            document = try BackupDocument(json: Data(buffer: try req.jsonBodyBuffer()))
        } catch let error as ValidationError {
            throw APIError.validation(error.fields)
        }
        let summary = try await AccountService.restore(document, userId: try req.user.id, app: req.application, db: req.db)
        return try jsonResponse(summary)
    }

    // MARK: Ways in

    @Sendable
    func signInMethods(req: Request) async throws -> Response {
        try jsonResponse(try await AccountLinks.methods(of: try req.user.id, db: req.db), headers: ["Cache-Control": "no-store"])
    }

    /// Adds a provider's sign-in (proven as at `/auth/provider`) to the signed-in account: 201,
    /// or 200 when it is this account's already; 409 when it opens another account (merge it).
    @Sendable
    func addSignInMethod(req: Request) async throws -> Response {
        let userId = try req.user.id
        let identity = try await AuthService.verifiedIdentity(try req.decodeJSON(ProviderSignInRequest.self), caller: req.caller)
        let before = try await AccountLinks.owner(of: identity, db: req.db)
        do {
            try await AccountLinks.link(identity, to: userId, now: req.now, db: req.db)
        } catch is AccountLinks.LinkedElsewhere {
            throw AccountLinks.linkedElsewhereError(identity.provider)
        }
        return try jsonResponse(try await AccountLinks.methods(of: userId, db: req.db), status: before == nil ? .created : .ok,
                                headers: ["Cache-Control": "no-store"])
    }

    @Sendable
    func removeSignInMethod(req: Request) async throws -> Response {
        guard let provider = req.parameters.get("provider").flatMap(IdentityProvider.init(rawValue:)) else {
            throw APIError(.notFound, "No such way to sign in")
        }
        return try jsonResponse(try await AccountLinks.unlink(provider, userId: try req.user.id, now: req.now, db: req.db),
                                headers: ["Cache-Control": "no-store"])
    }

    /// Brings another account of the person's into this one: the body signs in to it.
    @Sendable
    func merge(req: Request) async throws -> Response {
        let userId = try req.user.id
        let other = try await AccountLinks.proven(try req.decodeJSON(AccountMergeRequest.self), caller: req.caller)
        let summary = try await AccountLinks.merge(other, into: userId, app: req.application, db: req.db)
        req.logger.info("Account \(other) merged into \(userId) at its owner's request")
        return try jsonResponse(summary, headers: ["Cache-Control": "no-store"])
    }

    /// 204 once the account is gone. A valid access token of an account already deleted (a
    /// retry whose first answer was lost) gets the same 204: the account it names is gone, which
    /// is what was asked. Any other token is a 401, as everywhere.
    @Sendable
    func deleteAccount(req: Request) async throws -> HTTPStatus {
        guard let token = req.headers.bearerToken else { throw APIError.unauthorized }
        let verified = try await TokenService.verifySignatureAndClaims(token, app: req.application)
        guard verified.expires > req.now else { throw APIError.unauthorized }
        guard let model = try await UserModel.find(verified.userId, on: req.db) else { return .noContent }
        _ = try await TokenService.authenticate(token, app: req.application, on: req.eventLoop).get()
        let body = (req.body.data?.readableBytes ?? 0) > 0 ? try req.decodeJSON(DeleteAccountRequest.self) : DeleteAccountRequest()
        try await AccountService.confirmDeletion(body, user: model, caller: req.caller)
        try await AccountService.deleteAccount(verified.userId, app: req.application, db: req.db)
        req.logger.info("Account \(verified.userId) deleted at its owner's request")
        return .noContent
    }
}

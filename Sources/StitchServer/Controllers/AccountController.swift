import Fluent
import Foundation
import StitchCore
import Vapor

/// The account itself: a new password, a restore from a backup, and deletion.
struct AccountController: RouteCollection {
    /// A whole account's backup with its pictures inline (base64: a third larger than the files).
    static let maxRestoreBody: ByteCount = "300mb"

    func boot(routes: any RoutesBuilder) throws {
        let signedIn = routes.grouped(RequireUser())
        signedIn.post("auth", "password", use: changePassword)
        signedIn.get("account", "export", use: export)
        signedIn.on(.POST, "account", "restore", body: .collect(maxSize: Self.maxRestoreBody), use: restore)
        // Its own check of the token: a repeated request, once the account is gone, answers the
        // same as the first.
        routes.delete("auth", "account", use: deleteAccount)
    }

    @Sendable
    func changePassword(req: Request) async throws -> HTTPStatus {
        try await AccountService.changePassword(try req.decodeJSON(ChangePasswordRequest.self), user: try req.user, req: req)
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

    /// 204 once the account is gone. A valid access token of an account already deleted (a
    /// retry whose first answer was lost) gets the same 204: the account it names is gone, which
    /// is what was asked. Any other token is a 401, as everywhere.
    @Sendable
    func deleteAccount(req: Request) async throws -> HTTPStatus {
        guard let token = req.headers.bearerToken else { throw APIError.unauthorized }
        let verified = try await TokenService.verifySignatureAndClaims(token, on: req)
        guard verified.expires > req.now else { throw APIError.unauthorized }
        guard let model = try await UserModel.find(verified.userId, on: req.db) else { return .noContent }
        _ = try await TokenService.authenticate(token, on: req).get()
        let body = (req.body.data?.readableBytes ?? 0) > 0 ? try req.decodeJSON(DeleteAccountRequest.self) : DeleteAccountRequest()
        try await AccountService.confirmDeletion(body, user: model, req: req)
        try await AccountService.deleteAccount(verified.userId, app: req.application, db: req.db)
        req.logger.info("Account \(verified.userId) deleted at its owner's request")
        return .noContent
    }
}

import Fluent
import Foundation
import StitchCore
import Vapor

struct AuthController: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        let auth = routes.grouped("auth")
        let throttled = auth.grouped(ClientThrottle())
        throttled.post("register", use: register)
        throttled.post("login", use: login)
        throttled.post("refresh", use: refresh)
        throttled.post("provider", use: provider)
        throttled.post("provider", "link", use: linkProvider)
        throttled.post("provider", "link", "mail", use: mailProviderLink)
        throttled.post("password-reset", use: requestPasswordReset)
        throttled.post("password-reset", "confirm", use: confirmPasswordReset)
        let signedIn = auth.grouped(RequireUser())
        signedIn.post("logout", use: logout)
        signedIn.get("me", use: me)
    }

    @Sendable
    func register(req: Request) async throws -> Response {
        let body = try req.decodeJSON(RegisterRequest.self)
        let (user, session) = try await AuthService.createAccount(body, caller: req.caller) { user, db in
            try await TokenService.startFamily(userId: user.id!, on: db, app: req.application)
        }
        return try await authResponse(user: user, providers: [.email], session: session, status: .created, req: req)
    }

    @Sendable
    func login(req: Request) async throws -> Response {
        let body = try req.decodeJSON(LoginRequest.self)
        let user = try await AuthService.checkPassword(email: body.email, password: body.password, caller: req.caller)
        let session = try await TokenService.startFamily(userId: user.id!, on: req.db, app: req.application)
        return try await authResponse(user: user, providers: try await providers(of: user.id!, db: req.db), session: session, status: .ok, req: req)
    }

    @Sendable
    func requestPasswordReset(req: Request) async throws -> Response {
        let accepted = try await PasswordReset.request(try req.decodeJSON(PasswordResetRequest.self), caller: req.caller)
        return try jsonResponse(accepted, status: .accepted, headers: ["Cache-Control": "no-store"])
    }

    @Sendable
    func confirmPasswordReset(req: Request) async throws -> HTTPStatus {
        _ = try await PasswordReset.confirm(try req.decodeJSON(PasswordResetConfirmRequest.self), caller: req.caller)
        return .noContent
    }

    @Sendable
    func refresh(req: Request) async throws -> Response {
        let body = try req.decodeJSON(RefreshRequest.self)
        do {
            let client = ClientThrottle.clientAddress(req, config: req.config)
            let rotated = try await TokenService.rotate(body.refreshToken, client: client, app: req.application, db: req.db)
            guard let user = try await UserModel.find(rotated.userId, on: req.db) else { throw APIError.unauthorized }
            return try await authResponse(
                user: user, providers: try await providers(of: rotated.userId, db: req.db),
                session: (rotated.token, rotated.familyId), status: .ok, req: req)
        } catch is TokenService.RotationError {
            throw APIError(.unauthorized, "Your session has ended. Please sign in again.")
        }
    }

    @Sendable
    func logout(req: Request) async throws -> HTTPStatus {
        let user = try req.user
        let body = (req.body.data?.readableBytes ?? 0) > 0 ? try req.decodeJSON(LogoutRequest.self) : nil
        var families: Set<UUID> = [user.sessionId]
        if let token = body?.refreshToken,
           let row = try await RefreshTokenModel.query(on: req.db).filter(\.$tokenHash == TokenService.hash(token))
               .filter(\.$user.$id == user.id).first() {
            families.insert(row.familyId)
        }
        for family in families { try await TokenService.revokeFamily(family, at: req.now, on: req.db) }
        return .noContent
    }

    @Sendable
    func me(req: Request) async throws -> Response {
        let auth = try req.user
        guard let user = try await UserModel.find(auth.id, on: req.db) else { throw APIError.unauthorized }
        return try jsonResponse(user.profile(providers: try await providers(of: auth.id, db: req.db)))
    }

    @Sendable
    func provider(req: Request) async throws -> Response {
        let body = try req.decodeJSON(ProviderSignInRequest.self)
        let identity = try await AuthService.verifiedIdentity(body, caller: req.caller)
        let (user, session): (UserModel, (token: String, familyId: UUID))
        do {
            (user, session) = try await AuthService.findOrCreate(identity, displayName: body.displayName, caller: req.caller) { user, db in
                try await TokenService.startFamily(userId: user.id!, on: db, app: req.application)
            }
        } catch let clash as AccountLinks.Clash {
            throw clash.apiError(secret: req.config.jwtSecret)
        }
        return try await authResponse(user: user, providers: try await providers(of: user.id!, db: req.db), session: session, status: .ok, req: req)
    }

    /// `POST /auth/provider/link`: the 409's sign-in added to the account once its password is given.
    @Sendable
    func linkProvider(req: Request) async throws -> Response {
        let body = try req.decodeJSON(ProviderLinkRequest.self)
        let user: UserModel
        do {
            user = try await AccountLinks.link(token: body.linkToken, password: body.password, caller: req.caller)
        } catch is AccountLinks.LinkedElsewhere {
            throw APIError(.conflict, "That sign-in was added to another account meanwhile")
        }
        let session = try await TokenService.startFamily(userId: user.id!, on: req.db, app: req.application)
        return try await authResponse(user: user, providers: try await providers(of: user.id!, db: req.db), session: session, status: .ok, req: req)
    }

    /// `POST /auth/provider/link/mail`: the 409's sign-in added by a link mailed to the account.
    @Sendable
    func mailProviderLink(req: Request) async throws -> Response {
        let body = try req.decodeJSON(ProviderLinkMailRequest.self)
        return try jsonResponse(try await AccountLinks.mailLink(token: body.linkToken, caller: req.caller), status: .accepted, headers: ["Cache-Control": "no-store"])
    }

    // MARK: helpers

    private func providers(of userId: UUID, db: any Database) async throws -> [IdentityProvider] {
        let rows = try await IdentityModel.query(on: db).filter(\.$user.$id == userId).all()
        return Array(Set(rows.compactMap { IdentityProvider(rawValue: $0.provider) })).sorted { $0.rawValue < $1.rawValue }
    }

    private func authResponse(
        user: UserModel, providers: [IdentityProvider], session: (token: String, familyId: UUID), status: HTTPStatus, req: Request
    ) async throws -> Response {
        let (access, expires) = try await TokenService.makeAccessToken(userId: user.id!, familyId: session.familyId, app: req.application)
        let body = AuthResponse(user: user.profile(providers: providers), accessToken: access, refreshToken: session.token, accessTokenExpiresAt: expires)
        return try jsonResponse(body, status: status, headers: ["Cache-Control": "no-store"])
    }
}

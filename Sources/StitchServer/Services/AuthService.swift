import Fluent
import Foundation
import SQLKit
import StitchCore
import Vapor

/// Signing in and creating accounts — by email and password, or by a provider's verified
/// identity — for the API (`AuthController`) and the web app alike.
enum AuthService {
    /// Creates an email account (409 for an address already registered, in any case) and, in the
    /// same transaction, whatever sign-in the caller needs. Shared by the API and the web app.
    static func createAccount<T: Sendable>(
        _ body: RegisterRequest, caller: Caller, signIn: @escaping @Sendable (UserModel, any Database) async throws -> T
    ) async throws -> (UserModel, T) {
        _ = try body.validated()
        let email = Rules.normalizedEmail(body.email)
        let hash = try await caller.application.passwords.hash(body.password)
        let now = caller.now
        let user = UserModel(
            email: email, displayName: body.displayName.trimmedWhitespace,
            passwordHash: hash, now: now)
        let duplicate = APIError(.conflict, "An account with this email already exists", fields: ["email": "Already registered"])
        do {
            let result = try await caller.db.writeTransaction { db in
                if try await UserModel.query(on: db).filter(\.$email == email).first() != nil { throw duplicate }
                try await user.create(on: db)
                try await IdentityModel(userId: user.id!, provider: .email, providerUserId: email, now: now).create(on: db)
                return try await signIn(user, db)
            }
            AddressProof.mailConfirmation(to: user, caller: caller)
            return (user, result)
        } catch let error as any DatabaseError where error.isConstraintFailure {
            // Two registrations racing for one address: the unique index decides.
            throw duplicate
        }
    }

    /// Email and password, counted in the database so every instance sees the counts. Unknown
    /// addresses take as long as wrong passwords and get the same answer. Shared by the API and
    /// the web app, and by the checks of a signed-in person's current password.
    ///
    /// Attempts are counted per account and client (`PasswordAttempts`) before bcrypt runs, in one
    /// atomic statement each, so attempts sent at once each see their own count. A client past
    /// `loginMaxFailures` for an account is refused with 429 until its window passes; others are
    /// not: a stranger failing from elsewhere can't lock the owner out. An account under attack
    /// (more failures than that from all clients together) costs each check a short delay, and its
    /// owner gets one mail a window. A right password clears that client's count.
    static func checkPassword(email rawEmail: String, password: String, caller: Caller) async throws -> UserModel {
        let email = Rules.normalizedEmail(rawEmail)
        let failure = APIError(.unauthorized, "Invalid email or password")
        let user = try await UserModel.query(on: caller.db).filter(\.$email == email).first()
        let attempt = try await PasswordAttempts.admit(email: email, user: user, caller: caller)
        // An unknown address is checked against a dummy hash so it costs as much as a wrong password.
        let ok = try await caller.application.passwords.verify(
            password, hash: user?.passwordHash ?? caller.application.dummyPasswordHash)
        guard ok, let user, user.passwordHash != nil else { throw failure }
        try await attempt.succeeded(on: caller.db)
        return user
    }

    /// The identity a provider vouches for (Apple's token checked, an OAuth code exchanged);
    /// 400 for a request missing its proof, 401 for one the provider doesn't back.
    static func verifiedIdentity(_ body: ProviderSignInRequest, caller: Caller) async throws -> ProviderIdentity {
        do {
            switch body.provider {
            case .apple:
                guard let token = body.idToken, !token.isEmpty else {
                    throw APIError.validation(["idToken": "An Apple identity token is required"])
                }
                // The nonce binds the token to this sign-in: without one, a token seen once could sign in again.
                guard caller.config.apple != nil else { throw APIError(.unauthorized, "Sign in with Apple is not configured on this server") }
                guard let nonce = body.nonce, !nonce.isEmpty else {
                    throw APIError.validation(["nonce": "The nonce the app sent to Apple is required"])
                }
                return try await AppleSignIn.verify(idToken: token, nonce: nonce, app: caller.application)
            case .instagram, .tiktok:
                guard let code = body.code, !code.isEmpty else {
                    throw APIError.validation(["code": "An authorization code is required"])
                }
                return try await OAuthSignIn.verify(provider: body.provider, code: code, redirectUri: body.redirectUri, app: caller.application)
            case .email:
                throw APIError.validation(["provider": "Use /auth/login for email accounts"])
            }
        } catch let error as ProviderError {
            caller.logger.info("Provider sign-in refused: \(error.reason)")
            throw APIError(.unauthorized, "We couldn't verify that sign-in. Please try again.")
        }
    }

    /// The account behind a verified provider identity, created on first sign-in. A new identity
    /// whose provider-verified address belongs to an account throws `AccountLinks.Clash`
    /// (nothing created): the person may add it to that account by proving it. An address the
    /// provider doesn't vouch for never leads to an account, and isn't kept on a new one.
    static func findOrCreate<T: Sendable>(
        _ identity: ProviderIdentity, displayName: String?, caller: Caller,
        signIn: @escaping @Sendable (UserModel, any Database) async throws -> T
    ) async throws -> (UserModel, T) {
        let now = caller.now
        return try await caller.db.writeTransaction { db in
            if let existing = try await IdentityModel.query(on: db)
                .filter(\.$provider == identity.provider.rawValue).filter(\.$providerUserId == identity.userId)
                .with(\.$user).first() {
                return (existing.user, try await signIn(existing.user, db))
            }
            var email = identity.emailVerified ? identity.email.map(Rules.normalizedEmail) : nil
            if let candidate = email, let owner = try await UserModel.query(on: db).filter(\.$email == candidate).first() {
                throw AccountLinks.Clash(
                    pending: .init(provider: identity.provider, providerUserId: identity.userId, email: candidate,
                                   issued: Int(now.timeIntervalSince1970)),
                    accountHasPassword: owner.passwordHash != nil)
            }
            if email?.isEmpty == true { email = nil }
            let name = Rules.clean(displayName) ?? Rules.clean(identity.displayName)
                ?? email.map { String($0.prefix { $0 != "@" }) } ?? "Stitcher"
            let user = UserModel(email: email, displayName: String(name.prefix(Limits.displayName)), passwordHash: nil, now: now)
            // The provider verified the address it gave.
            if email != nil { user.emailProvenAt = now }
            try await user.create(on: db)
            try await IdentityModel(userId: user.id!, provider: identity.provider, providerUserId: identity.userId, now: now).create(on: db)
            return (user, try await signIn(user, db))
        }
    }
}

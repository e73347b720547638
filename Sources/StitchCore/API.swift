import Foundation

/// The body of every failed request: a sentence and, for validation failures, each field's message.
public struct APIErrorBody: Codable, Sendable, Equatable, Error {
    public var error: String
    public var fields: [String: String]?

    public init(error: String, fields: [String: String]? = nil) {
        self.error = error
        self.fields = fields
    }
}

public struct HealthResponse: Codable, Sendable, Equatable {
    public var status: String
    public init(status: String) { self.status = status }
}

// MARK: - Auth

public struct RegisterRequest: Codable, Sendable {
    public var email: String
    public var password: String
    public var displayName: String

    public init(email: String, password: String, displayName: String) {
        self.email = email
        self.password = password
        self.displayName = displayName
    }
}

extension RegisterRequest: Validatable {
    public func validate(into v: inout Validator) {
        Rules.validateEmail(email, into: &v)
        Rules.validatePassword(password, into: &v)
        Rules.validateDisplayName(displayName, into: &v)
    }
}

public struct LoginRequest: Codable, Sendable {
    public var email: String
    public var password: String

    public init(email: String, password: String) {
        self.email = email
        self.password = password
    }
}

public struct RefreshRequest: Codable, Sendable {
    public var refreshToken: String
    public init(refreshToken: String) { self.refreshToken = refreshToken }
}

public struct LogoutRequest: Codable, Sendable {
    public var refreshToken: String?
    public init(refreshToken: String? = nil) { self.refreshToken = refreshToken }
}

public struct ProviderSignInRequest: Codable, Sendable {
    public var provider: IdentityProvider
    /// Sign in with Apple's identity token (a JWT).
    public var idToken: String?
    /// An OAuth authorization code (Instagram, TikTok).
    public var code: String?
    /// The nonce the app sent to Apple, checked against the token's `nonce` claim.
    public var nonce: String?
    /// The redirect URI the code was issued for, when it differs from the configured one.
    public var redirectUri: String?
    /// Apple sends the name only on the first sign-in, to the app, not in the token.
    public var displayName: String?

    public init(
        provider: IdentityProvider, idToken: String? = nil, code: String? = nil, nonce: String? = nil,
        redirectUri: String? = nil, displayName: String? = nil
    ) {
        self.provider = provider
        self.idToken = idToken
        self.code = code
        self.nonce = nonce
        self.redirectUri = redirectUri
        self.displayName = displayName
    }
}

public struct AuthResponse: Codable, Sendable {
    public var user: UserProfile
    public var accessToken: String
    public var refreshToken: String
    public var accessTokenExpiresAt: Date
    public var tokenType: String

    public init(user: UserProfile, accessToken: String, refreshToken: String, accessTokenExpiresAt: Date) {
        self.user = user
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.accessTokenExpiresAt = accessTokenExpiresAt
        self.tokenType = "Bearer"
    }
}

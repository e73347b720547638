import Foundation
import StitchCore
@testable import StitchServer
import Testing
import VaporTesting

/// Registers an account through the API and returns its tokens.
@discardableResult
func register(_ app: Application, email: String = "ann@example.com", password: String = "correct horse",
              name: String = "Ann") async throws -> AuthResponse {
    let res = try await app.send(.POST, "/auth/register", json: RegisterRequest(email: email, password: password, displayName: name))
    try #require(res.status == .created, "register failed: \(res.text)")
    return try res.decode(AuthResponse.self)
}

func login(_ app: Application, email: String = "ann@example.com", password: String = "correct horse") async throws -> TestingHTTPResponse {
    try await app.send(.POST, "/auth/login", json: LoginRequest(email: email, password: password))
}

func refresh(_ app: Application, _ token: String) async throws -> TestingHTTPResponse {
    try await app.send(.POST, "/auth/refresh", json: RefreshRequest(refreshToken: token))
}

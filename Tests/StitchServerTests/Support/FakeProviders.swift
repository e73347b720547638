import Foundation
import ProviderStandIns
@testable import StitchServer
import Vapor

/// Test-only RSA keys (generated for this suite; they protect nothing).
enum TestKeys {
    /// The stand-in Apple's own key (its JWKS serves the public half).
    static let applePEM = ProviderStandIns.applePEM
    static let strangerPEM = """
-----BEGIN PRIVATE KEY-----
MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQC2Yrh3Y132676U
EBlZ3b8B3F4SJbg2vCgq91qYE5Hj+kiugskHpmWT9GXkcTCy3jb9tnu8K+WcenY8
cwpuPtsDugoRsUZEUSYjyHd5lp4Q/pAXBOUIC1WtODgdxU2SzWPR4TIXHfMk5Xqh
eL5mZIoxmibq5qsPoVI/pW+pDOYSXtjZVUwuX3EKCT6T6liDo+ixzgcErlnwwT5j
dHWp4vMYqdCEEpF4WQHO6XZyjlaUDtwL4dV0vXP+tmZ58GQn4CO3XmdV5RrUbQYW
mFV3MTXsY3f0zXVbe7e7Oz2GAgLaY4hnaXPJO27RAUWMnLPDnuSRxc22rlTkIoDl
Q6P4ViCTAgMBAAECggEABBOSY+vvC1HOYXWd23BYkJLh8PqyDCcjqEvKO2C6/6MP
qAOsUpg/6Cqr2STehC2+gbU01spBLsCRKMPsrvVT5KVuP2IvwkWK2knkwbooFkeN
f0/Qsd+7yBj1lO5cz+csHMjK9QSD84ZdhoMx99mCoGrKa+QNkFZFH4vaQkEGwDcf
8iGcH9h+A1c+TE/4QTBNuf5NvAVDUfdtOP04NMhHxnAHwJR53kZ9wrq7l94MkwNM
Rz8SiWaoTqGO3DPk3NzFJyfbsplugIpjCcVVTItdL4Ty7YryLtiIUorFLGf18LTn
yEYpTLdl4Z+ycUnpBuwVj7MWB08Uz9QtUHVk0+AyoQKBgQD2QW45I2z4x3AXPD1Q
ldhyOL6boa7iZsImFnvNv0yjdzonCOdHGSFqUwpTUwzDwn87hec3P3NktFKD9ich
YhUT876jjgpdQQqbNxpeEuEC8JTenAxeDKunmanVqTuY4RQFjh5oRrMM08MTI46L
NhITSQEcA+BlM7l7tXRkB8rphwKBgQC9mkmHZL1vV1nPneLCqH03b0SYsyWcla4k
83uXxHj+EDP/gAXP1UwjXU5Nl3WcsxqWJuD//tUn88x8JIK/fp86JA8eFzYgXACe
/wZyqNiinFw4/6UJSvuNAdlR6msf5T0/84SnLfaFmmXkgFe3KGjwx78URLdns1A2
kefFqOtjlQKBgQDw6ZQevCSYwexMHvfRRbdqD0+STDwea+9WebqGz7b3WOYAWDqD
GPfS4AiC+gXL4hS9M8O/DgkjJTJwvTkM9LqwOU5xDb3f+4iXzvGxxQBy8tCBc+K5
g+XO4or/Zz/R0ajXwnDHDRuP2f/HUoracHyAd3RpZvV5rH+yohOK5QDDMwKBgBpZ
muZqJbmXli+4bY9IAz71A7+FBjEgzDbub7rD31zPu6pCjIw5xH8VtJAsAHhqm8NK
W/K347/NrhmCqXkbi910rXUtHKSapKt0Hd1JgfH3cQmq3bDQ7uzF2QH9Zi3kmgKN
QV5KkPw4XPjIrWgTAaKU4AVdF3AeB4PN+zwJIc2RAoGBAMsU7xZ+rBKXcXmIPS65
mkd+jAi3uR+AE/dgcDmSM5i8He9PqQ9sT7/OWBSFMtIvhV/KWMPd7g0CIq3F9LBF
Uucp2JZhFgmo8OFOAuU+Zfauv5US7YUHOINcJfx0XYtMOcCioNw1OVxMXxbsLhiz
xaM3XFHWvi4cwl5Iq/C+BsOG
-----END PRIVATE KEY-----
"""
}

/// The suites' Apple, Instagram and TikTok: `ProviderStandIns` (the same stand-ins the browser
/// tests run as `provider-standins`) with the phone's settings — codes its SDK got beforehand.
final class FakeProviders: Sendable {
    let standIns: ProviderStandIns
    var baseURL: String { standIns.baseURL }

    static let appleKid = ProviderStandIns.appleKid

    private init(_ standIns: ProviderStandIns) { self.standIns = standIns }

    static func start() async throws -> FakeProviders { FakeProviders(try await ProviderStandIns.start(.suite)) }

    func stop() async throws { try await standIns.stop() }

    /// Points an app's configuration at the stand-ins.
    func configure(_ config: inout AppConfig) {
        let settings = standIns.settings
        config.apple = .init(clientId: settings.appleClientId, jwksURL: baseURL + "/apple/auth/keys")
        config.instagram = .init(
            clientId: settings.instagram.id, clientSecret: settings.instagram.secret,
            redirectURI: "https://stitchuation.app/oauth/instagram", tokenURL: baseURL + "/instagram/oauth/access_token",
            userInfoURL: baseURL + "/instagram/me?fields=id,username")
        config.tiktok = .init(
            clientId: settings.tiktok.id, clientSecret: settings.tiktok.secret,
            redirectURI: "https://stitchuation.app/oauth/tiktok", tokenURL: baseURL + "/tiktok/v2/oauth/token/",
            userInfoURL: baseURL + "/tiktok/v2/user/info/?fields=open_id,union_id,display_name")
    }

    /// Signs an identity token the way Apple does (RS256, kid in the header).
    static func appleToken(
        sub: String = "001234.apple-user", aud: String = "com.stitchuation.app", iss: String = AppConfig.Apple.issuer,
        expires: Date, nonce: String? = nil, email: String? = nil, emailVerified: Bool? = nil, pem: String = TestKeys.applePEM, kid: String = appleKid
    ) async throws -> String {
        try await ProviderStandIns.appleToken(sub: sub, aud: aud, iss: iss, expires: expires, nonce: nonce, email: email,
                                              emailVerified: emailVerified, pem: pem, kid: kid)
    }
}

/// A test app whose Apple, Instagram and TikTok are the stand-ins on this machine (`FakeProviders`),
/// with `adjust` after them (the web flows' redirect addresses).
func withFakeProviders(adjust: (inout AppConfig) -> Void = { _ in }, _ body: (Application, TestClock) async throws -> Void) async throws {
    let fake = try await FakeProviders.start()
    do {
        try await withTestApp(adjust: { config in
            fake.configure(&config)
            adjust(&config)
        }) { app, clock in try await body(app, clock) }
    } catch {
        try? await fake.stop()
        throw error
    }
    try await fake.stop()
}

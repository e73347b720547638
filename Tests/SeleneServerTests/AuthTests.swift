import Foundation
import SeleneShared
@testable import SeleneServer
import Testing
import VaporTesting

@Suite("Selene auth: bearer tokens, 401/403, loopback without a token")
struct AuthTests {
    static let second = "second-token-abcdefghijklmnopqrstuvwxyz-0123456789"

    @Test("Missing or malformed Authorization is 401, a wrong token 403, a configured one passes")
    func statuses() async throws {
        try await withSelene(tokens: [testToken, Self.second]) { app, _ in
            for path in ["/api/notes", "/api/threads", "/api/sessions", "/api/memories", "/api/llm/health", "/api/briefing/associations"] {
                let none = try await app.send(.GET, path)
                #expect(none.status == .unauthorized, "\(path)")
                #expect(none.headers.first(name: .wwwAuthenticate) == "Bearer" && none.error?.error.contains("Bearer") == true)
                for malformed in ["Basic dXNlcjpwYXNz", "Bearer", "Bearer  ", "Token \(testToken)", "Bearer a b", testToken] {
                    let res = try await app.send(.GET, path, headers: ["Authorization": malformed])
                    #expect(res.status == .unauthorized, "\(path) with \(malformed)")
                }
                let wrong = try await app.send(.GET, path, token: testToken + "x")
                #expect(wrong.status == .forbidden && wrong.error?.error == "That API token is not accepted")
                #expect(try await app.send(.GET, path, token: String(testToken.dropLast())).status == .forbidden)
                #expect(try await app.send(.GET, path, token: testToken).status == .ok)
                #expect(try await app.send(.GET, path, token: Self.second).status == .ok)
                #expect(try await app.send(.GET, path, headers: ["Authorization": "bearer \(testToken)"]).status == .ok)
            }
            let hook = try await app.send(.POST, "/webhook/api/drafts", json: DraftsCapture(content: "x"))
            #expect(hook.status == .unauthorized)
            #expect(try await app.send(.POST, "/webhook/api/drafts", token: "nope-nope-nope", json: DraftsCapture(content: "x")).status == .forbidden)
            #expect(try await app.noteCount() == 0)
            #expect(try await app.send(.POST, "/webhook/api/drafts", token: testToken, json: DraftsCapture(content: "x")).status == .created)
            #expect(try await app.send(.GET, "/health").status == .ok)
            #expect(try await app.send(.GET, "/openapi.json").status == .ok)
        }
    }

    @Test("Without tokens everything is open, but only on loopback")
    func loopbackOnly() throws {
        let open = SeleneConfig(database: .sqliteMemory, dataDirectory: "/tmp")
        for host in ["127.0.0.1", "localhost", "::1", "[::1]", "127.0.0.5"] {
            #expect(throws: Never.self) { try ListenGuard.check(host: host, config: open) }
        }
        for host in ["0.0.0.0", "192.168.1.20", "::", "100.64.1.2", "example.org"] {
            #expect { try ListenGuard.check(host: host, config: open) } throws: { error in
                "\(error)".contains("SELENE_API_TOKEN") && "\(error)".contains(host)
            }
        }
        let protected = SeleneConfig(database: .sqliteMemory, dataDirectory: "/tmp", apiTokens: [testToken])
        #expect(throws: Never.self) { try ListenGuard.check(host: "0.0.0.0", config: protected) }
    }

    @Test("SELENE_API_TOKEN: comma-separated, each at least 32 characters")
    func tokenSettings() throws {
        let two = try SeleneConfig.fromEnvironment(["SELENE_API_TOKEN": " \(testToken) , \(Self.second) ", "SELENE_DATA_DIR": "/tmp/x"])
        #expect(two.apiTokens == [testToken, Self.second])
        #expect { try SeleneConfig.fromEnvironment(["SELENE_API_TOKEN": "short"]) } throws: { "\($0)".contains("at least 32") }
        #expect { try SeleneConfig.fromEnvironment(["SELENE_API_TOKEN": "\(testToken),tiny"]) } throws: { "\($0)".contains("selene token new") }
        #expect(try SeleneConfig.fromEnvironment([:]).apiTokens.isEmpty)
        let generated = APITokens.newToken()
        #expect(generated.count == 43 && generated != APITokens.newToken())
        #expect(try SeleneConfig.parseTokens(generated) == [generated])
    }

    @Test("Other settings are read and checked")
    func settings() throws {
        let config = try SeleneConfig.fromEnvironment([
            "SELENE_DATA_DIR": "/srv/selene", "SELENE_OLLAMA_URL": "http://10.0.0.2:11434/", "SELENE_CHAT_MODEL": "qwen2.5",
            "SELENE_EMBED_MODEL": "all-minilm", "SELENE_NUM_CTX": "16384", "SELENE_KEEP_ALIVE": "-1", "SELENE_BRIEFING_HOUR": "6",
            "SELENE_TIMEZONE": "Europe/Berlin", "SELENE_PROCESSING": "off",
        ])
        #expect(config.database == .sqliteFile(path: "/srv/selene/selene.sqlite"))
        #expect(config.llm == SeleneConfig.LLM(baseURL: "http://10.0.0.2:11434", chatModel: "qwen2.5", embeddingModel: "all-minilm", numCtx: 16384, keepAlive: "-1"))
        #expect(config.briefingHour == 6 && config.timeZone.identifier == "Europe/Berlin" && !config.processing.enabled)
        #expect(try SeleneConfig.fromEnvironment(["SELENE_OLLAMA_URL": "off"]).llm == nil)
        #expect(try SeleneConfig.fromEnvironment(["SELENE_DATABASE_URL": "postgres://u@h/db"]).database == .postgres(url: "postgres://u@h/db"))
        for (key, value) in [("SELENE_DATABASE_URL", "mysql://x"), ("SELENE_OLLAMA_URL", "ftp://x"), ("SELENE_NUM_CTX", "12"),
                             ("SELENE_BRIEFING_HOUR", "25"), ("SELENE_TIMEZONE", "Mars/Base"), ("SELENE_PROCESSING", "sometimes"),
                             ("SELENE_APNS_KEY_ID", "ABC")] {
            #expect(throws: SeleneConfigError.self, "\(key)=\(value)") { try SeleneConfig.fromEnvironment([key: value]) }
        }
    }

    @Test("Bearer parsing")
    func bearer() {
        #expect(APITokens.bearer("Bearer abc") == "abc")
        #expect(APITokens.bearer("bearer   abc") == "abc")
        #expect(APITokens.bearer("Bearer") == nil)
        #expect(APITokens.bearer("Bearer a b") == nil)
        #expect(APITokens.bearer("Basic abc") == nil)
        #expect(APITokens.bearer("Bearer ab\u{e9}") == nil)
        let tokens = APITokens([testToken])
        #expect(tokens.accepts(testToken) && !tokens.accepts(testToken + "x") && !tokens.accepts(""))
    }
}

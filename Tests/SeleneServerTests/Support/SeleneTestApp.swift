import ServerCommon
import Foundation
import Logging
import NIOCore
import OllamaStub
import SeleneShared
@testable import SeleneServer
import TestDatabases
import Testing
import VaporTesting

let testToken = "test-token-0123456789-abcdefghijklmnopqrstuvwxyz"

/// A configured, migrated Selene on its own database (in-memory SQLite, or a fresh PostgreSQL
/// database when TEST_DATABASE_URL is set), with a clock the test moves by hand. With `stub`,
/// its LLM is that Ollama-protocol server; without, no LLM is configured.
func withSelene(
    isolation: isolated (any Actor)? = #isolation,
    tokens: [String] = [],
    stub: OllamaStub? = nil,
    clock: ManualClock = ManualClock(),
    adjust: (inout SeleneConfig) -> Void = { _ in },
    _ body: (Application, ManualClock) async throws -> Void
) async throws {
    try await withTestApplication(prefix: "selene-test", logLevel: .error, configure: { app, dataDir, postgresURL in
        var config = SeleneConfig(database: postgresURL.map { .postgres(url: $0) } ?? .sqliteMemory, dataDirectory: dataDir,
                                  apiTokens: tokens, llm: stub.map { stubSettings($0) })
        config.briefingHour = nil
        config.pinStubThresholds()
        adjust(&config)
        try await configure(app, config: config, clock: clock.clock)
    }) { app in try await body(app, clock) }
}

extension SeleneConfig {
    /// The stub's vectors are hashed bags of words, far apart unless the words are shared; the
    /// suite's thread and association cases were written for these thresholds on them (the
    /// defaults are set for real embeddings: README, "Thresholds").
    mutating func pinStubThresholds() {
        threads.joinThreshold = 0.7
        threads.seedThreshold = 0.7
        processing.associationThreshold = 0.6
    }
}

/// Settings for the stub over either protocol (the OpenAI side at `/v1`, as llama-server's).
func stubSettings(_ stub: OllamaStub, url: String? = nil, provider: LLMProviderKind = .ollama) -> SeleneConfig.LLM {
    let base = url ?? stub.baseURL
    return SeleneConfig.LLM(provider: provider, baseURL: provider == .openai ? base + "/v1" : base,
                            chatModel: OllamaStub.chatModel, embeddingModel: OllamaStub.embeddingModel,
                            numCtx: 4096, keepAlive: "10m", requestTimeout: 5, connectTimeout: 2, structuredRetries: 1)
}

/// An Ollama-protocol stub for the body's length.
func withStub(isolation: isolated (any Actor)? = #isolation, _ body: (OllamaStub) async throws -> Void) async throws {
    let stub = try await OllamaStub.start()
    do {
        try await body(stub)
    } catch {
        await stub.stop()
        throw error
    }
    await stub.stop()
}

extension Application {
    /// Sends a request through the in-memory tester.
    func send(_ method: HTTPMethod, _ path: String, token: String? = nil, json: (any Encodable)? = nil,
              raw: String? = nil, headers: HTTPHeaders = [:]) async throws -> TestingHTTPResponse {
        var headers = headers
        if let token { headers.replaceOrAdd(name: .authorization, value: "Bearer \(token)") }
        var body: ByteBuffer?
        if let json {
            body = ByteBuffer(data: try SeleneJSON.encode(json))
            headers.contentType = .json
        } else if let raw {
            body = ByteBuffer(string: raw)
            if headers.contentType == nil { headers.contentType = .json }
        }
        return try await testing().sendRequest(method, path, headers: headers, body: body)
    }

    /// Sends and decodes a successful answer (failing the test on any other status).
    func call<T: Decodable>(_ method: HTTPMethod, _ path: String, json: (any Encodable)? = nil, token: String? = nil,
                            as type: T.Type = T.self, sourceLocation: SourceLocation = #_sourceLocation) async throws -> T {
        let res = try await send(method, path, token: token, json: json)
        #expect((200..<300).contains(res.status.code), "\(method) \(path) → \(res.status): \(res.text)", sourceLocation: sourceLocation)
        return try res.decode(T.self)
    }

    /// Captures a note through the API.
    @discardableResult
    func note(_ content: String, title: String? = nil, tags: [String]? = nil, token: String? = nil) async throws -> Note {
        try await call(.POST, "/api/notes", json: NewNote(content: content, title: title, tags: tags), token: token)
    }

    /// Works the processing queue until nothing is due.
    @discardableResult
    func process(owner: String = "test-worker") async throws -> ProcessingQueue.Summary {
        try await ProcessingQueue(db: db, services: selene, owner: owner, logger: logger).runOnce()
    }

    func noteCount() async throws -> Int { try await NoteStore(db: db).count() }
}

extension TestingHTTPResponse {
    func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        try SeleneJSON.decode(T.self, from: Data(buffer: body))
    }

    var error: ErrorBody? { try? decode(ErrorBody.self) }
    var text: String { body.getString(at: body.readerIndex, length: body.readableBytes) ?? "" }
}

/// Every test runs on the database the suite was started with; name it in failures.
let databaseName = TestDatabase.isPostgres ? "PostgreSQL" : "SQLite"

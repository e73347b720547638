import Foundation
import NIOCore
import SeleneShared
import Vapor

/// The stub's routes: Ollama's API, plus `/_stub/*` to set faults and read what was asked from
/// another process (the browser tests).
enum StubRoutes {
    struct Options: Decodable { var num_ctx: Int?; var temperature: Double?; var num_predict: Int?; var repeat_penalty: Double? }
    struct Message: Codable { var role: String; var content: String }
    struct Body: Decodable {
        var model: String?
        var prompt: String?
        var system: String?
        var messages: [Message]?
        var stream: Bool?
        var format: JSONValue?
        var options: Options?
        var keep_alive: JSONValue?
        var input: JSONValue?
        // The OpenAI protocol's own fields.
        var max_tokens: Int?
        var response_format: JSONValue?
        var temperature: Double?
        var repeat_penalty: Double?
    }

    static func register(on app: Application, stub: @escaping @Sendable () -> OllamaStub) {
        app.get("api", "tags") { req async throws -> Response in
            let (fault, slow) = stub().takeFault()
            try await delay(fault, slow)
            if fault == .serverError { return error(.internalServerError, "stub failure") }
            let models = fault == .modelMissing ? [] : [OllamaStub.chatModel, OllamaStub.embeddingModel].map { "\($0):latest" }
            return json(["models": .array(models.map { .object(["name": .string($0), "model": .string($0)]) })])
        }
        app.get("api", "version") { _ in json(["version": "0.0.0-stub"]) }
        app.post("api", "embed") { req async throws -> Response in try await embed(req, stub(), legacy: false) }
        app.post("api", "embeddings") { req async throws -> Response in try await embed(req, stub(), legacy: true) }
        app.post("api", "generate") { req async throws -> Response in try await complete(req, stub(), chat: false) }
        app.post("api", "chat") { req async throws -> Response in try await complete(req, stub(), chat: true) }

        StubOpenAIRoutes.register(on: app, stub: stub)

        app.post("_stub", "openai") { req async throws -> Response in
            let options = try JSONDecoder().decode(OllamaStub.OpenAIOptions.self, from: Data(buffer: req.body.data ?? ByteBuffer()))
            stub().openAI = options
            return json(["ok": true])
        }
        app.post("_stub", "fault") { req async throws -> Response in
            struct Set: Decodable { var fault: OllamaStub.Fault; var times: Int?; var after: Int?; var slowSeconds: Double?; var chunkDelay: Double? }
            let set = try JSONDecoder().decode(Set.self, from: Data(buffer: req.body.data ?? ByteBuffer()))
            stub().setFault(set.fault, times: set.times, after: set.after ?? 0, slowSeconds: set.slowSeconds)
            if let delay = set.chunkDelay { stub().setChunkDelay(delay) }
            return json(["fault": .string(set.fault.rawValue)])
        }
        app.get("_stub", "requests") { _ async throws -> Response in
            let response = Response(status: .ok, body: .init(data: try SeleneJSON.encode(stub().requests)))
            response.headers.contentType = .json
            return response
        }
    }

    static func decode(_ req: Request) throws -> Body {
        guard let buffer = req.body.data else { throw Abort(.badRequest, reason: "no body") }
        return try JSONDecoder().decode(Body.self, from: Data(buffer: buffer))
    }

    static func record(_ stub: OllamaStub, _ req: Request, _ body: Body, text: String, inputs: Int) {
        let prompt = body.messages.map { $0.map { "\($0.role): \($0.content)" }.joined(separator: "\n") } ?? [body.system, body.prompt].compactMap { $0 }.joined(separator: "\n")
        stub.record(.init(path: req.url.path, model: body.model, numCtx: body.options?.num_ctx,
                          keepAlive: body.keep_alive.flatMap { if case .string(let s) = $0 { s } else if case .number(let n) = $0 { String(n) } else { nil } },
                          stream: body.stream ?? !req.url.path.hasPrefix("/v1"), hasFormat: body.format != nil || body.response_format != nil, text: text, inputs: inputs, prompt: prompt,
                          temperature: body.options?.temperature ?? body.temperature,
                          repeatPenalty: body.options?.repeat_penalty ?? body.repeat_penalty,
                          schema: body.format ?? body.response_format?["json_schema"]?["schema"]))
    }

    static func known(_ model: String?) -> Bool {
        guard let model else { return false }
        return [OllamaStub.chatModel, OllamaStub.embeddingModel].contains { model == $0 || model == $0 + ":latest" }
    }

    static func embed(_ req: Request, _ stub: OllamaStub, legacy: Bool) async throws -> Response {
        let body = try decode(req)
        var inputs: [String] = []
        switch body.input ?? body.prompt.map(JSONValue.string) {
        case .string(let s)?: inputs = [s]
        case .array(let a)?: inputs = a.compactMap(\.stringValue)
        default: break
        }
        record(stub, req, body, text: inputs.joined(separator: "\n"), inputs: inputs.count)
        let (fault, slow) = stub.takeFault()
        try await delay(fault, slow)
        if fault == .serverError { return error(.internalServerError, "stub failure") }
        if fault == .modelMissing || !known(body.model) { return error(.notFound, "model '\(body.model ?? "")' not found, try pulling it first") }
        let vectors = inputs.map { OllamaStub.embedding($0) }
        if legacy { return json(["embedding": .array((vectors.first ?? []).map { .number(Double($0)) })]) }
        return json(["model": .string(body.model ?? ""), "embeddings": .array(vectors.map { .array($0.map { .number(Double($0)) }) })])
    }

    static func complete(_ req: Request, _ stub: OllamaStub, chat: Bool) async throws -> Response {
        let body = try decode(req)
        let system = chat ? (body.messages ?? []).filter { $0.role == "system" }.map(\.content).joined(separator: "\n") : (body.system ?? "")
        let prompt = chat ? (body.messages ?? []).filter { $0.role != "system" }.map { "\($0.role): \($0.content)" }.joined(separator: "\n")
                          : (body.prompt ?? "")
        let lastUser = chat ? ((body.messages ?? []).last { $0.role == "user" }?.content ?? "") : (body.prompt ?? "")
        record(stub, req, body, text: chat ? lastUser : prompt, inputs: 1)
        let (fault, slow) = stub.takeFault()
        try await delay(fault, slow)
        if fault == .serverError { return error(.internalServerError, "stub failure") }
        if fault == .modelMissing || !known(body.model) { return error(.notFound, "model '\(body.model ?? "")' not found, try pulling it first") }
        var answer = reply(fault: fault, schema: body.format, system: system, prompt: prompt, lastUser: lastUser, stub: stub)
        let limit = body.options?.num_predict.map { truncate(answer, toTokens: $0) }
        if let limit { answer = limit.text }
        let model = body.model ?? OllamaStub.chatModel
        let finalAnswer = answer
        @Sendable func line(_ text: String, done: Bool) -> JSONValue {
            var o: [String: JSONValue] = ["model": .string(model), "created_at": .string(WireDate.string(from: Date())), "done": .bool(done)]
            if chat { o["message"] = .object(["role": "assistant", "content": .string(text)]) } else { o["response"] = .string(text) }
            if done { o["done_reason"] = limit?.cut == true ? "length" : "stop"; o["eval_count"] = .number(Double(finalAnswer.count / 4)) }
            return .object(o)
        }
        guard body.stream ?? true else {
            return json(line(answer, done: true))
        }
        let pieces = pieces(answer)
        let delay = stub.chunkDelay
        let response = Response(status: .ok)
        response.headers.replaceOrAdd(name: .contentType, value: "application/x-ndjson")
        response.body = .init(asyncStream: { writer in
            do {
                try await write(writer)
            } catch {
                try? await writer.write(.error(error))
            }
        })
        @Sendable func write(_ writer: any AsyncBodyStreamWriter) async throws {
            for (index, piece) in pieces.enumerated() {
                // Cut off: the body ends without the final `done` line (as when Ollama dies mid-answer
                // behind a proxy that closes the response).
                if fault == .cutStream, index == 2 { try await writer.write(.end); return }
                if fault == .streamError, index == 2 {
                    try await writer.write(.buffer(ByteBuffer(data: try SeleneJSON.encode(JSONValue.object(["error": "stub stream failure"])) + Data("\n".utf8))))
                    try await writer.write(.end)
                    return
                }
                try await writer.write(.buffer(ByteBuffer(data: try SeleneJSON.encode(line(piece, done: false)) + Data("\n".utf8))))
                if delay > 0 { try await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000)) }
            }
            if fault == .cutStream { try await writer.write(.end); return }
            try await writer.write(.buffer(ByteBuffer(data: try SeleneJSON.encode(line("", done: true)) + Data("\n".utf8))))
            try await writer.write(.end)
        }
        return response
    }

    /// The answer to a request: JSON for a schema (or broken JSON under `.invalidJSON`), else text.
    static func reply(fault: OllamaStub.Fault, schema: JSONValue?, system: String, prompt: String, lastUser: String, stub: OllamaStub) -> String {
        guard let schema else { return fault == .invented ? OllamaStub.inventedAnswer : OllamaStub.answer(system: system, prompt: prompt) }
        if fault == .invalidJSON { return "{\"primaryTheme\": \"\", \"not\": \"valid\"" }
        let text = lastUser.isEmpty ? prompt : lastUser
        if schema["properties"]?["primaryTheme"] != nil, let understood = stub.understood(text) {
            return (try? String(decoding: SeleneJSON.encode(understood), as: UTF8.self)) ?? "{}"
        }
        return OllamaStub.structured(schema: schema, text: lastUser.isEmpty ? prompt : lastUser)
    }

    /// An answer cut at a token limit (four characters a token, as near as the stub needs).
    static func truncate(_ answer: String, toTokens limit: Int) -> (text: String, cut: Bool) {
        guard answer.count > limit * 4 else { return (answer, false) }
        return (String(answer.prefix(max(0, limit * 4))), true)
    }

    /// An answer's streamed pieces: a word each, the space before it kept.
    static func pieces(_ answer: String) -> [String] {
        answer.split(separator: " ", omittingEmptySubsequences: false).enumerated().map { $0.offset == 0 ? String($0.element) : " " + $0.element }
    }

    static func delay(_ fault: OllamaStub.Fault, _ seconds: Double) async throws {
        if fault == .slow { try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000)) }
    }

    static func json(_ value: JSONValue) -> Response {
        let response = Response(status: .ok, body: .init(data: (try? SeleneJSON.encode(value)) ?? Data()))
        response.headers.contentType = .json
        return response
    }

    static func json(_ object: [String: JSONValue]) -> Response { json(.object(object)) }

    static func error(_ status: HTTPResponseStatus, _ message: String) -> Response {
        let response = json(["error": .string(message)])
        response.status = status
        return response
    }
}

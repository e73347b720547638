import Foundation
import NIOCore
import SeleneShared
import Vapor

/// The stub's OpenAI-compatible side (SELENE.md §11), as llama-server and LM Studio speak it:
/// the same deterministic answers and faults as the Ollama routes, in that protocol's shapes.
enum StubOpenAIRoutes {
    static func register(on app: Application, stub: @escaping @Sendable () -> OllamaStub) {
        let v1 = app.grouped("v1")
        v1.get("models") { req async throws -> Response in
            if let refusal = authorize(req, stub()) { return refusal }
            let (fault, slow) = stub().takeFault()
            try await StubRoutes.delay(fault, slow)
            if fault == .serverError { return failure(.internalServerError, "stub failure", type: "server_error") }
            let models = fault == .modelMissing ? [] : [OllamaStub.chatModel, OllamaStub.embeddingModel]
            return StubRoutes.json(["object": "list", "data": .array(models.map { .object(["id": .string($0), "object": "model", "owned_by": "stub"]) })])
        }
        v1.post("embeddings") { req async throws -> Response in try await embeddings(req, stub()) }
        v1.post("chat", "completions") { req async throws -> Response in try await completions(req, stub()) }
        v1.on(.POST, "audio", "transcriptions", body: .collect(maxSize: "30mb")) { req async throws -> Response in try await transcription(req, stub()) }
    }

    /// A speech-to-text server's `POST /v1/audio/transcriptions` (whisper.cpp's server,
    /// faster-whisper-server, LocalAI): multipart with `file` and `model`; answers
    /// `{"text": "…"}` naming what it was sent, so a test can tell the audio arrived whole.
    static func transcription(_ req: Request, _ stub: OllamaStub) async throws -> Response {
        if let refusal = authorize(req, stub) { return refusal }
        struct Upload: Content { var file: File?; var model: String?; var response_format: String? }
        guard req.headers.contentType?.type == "multipart" else {
            return failure(.badRequest, "expected multipart/form-data", type: "invalid_request_error")
        }
        let upload = try req.content.decode(Upload.self)
        guard let file = upload.file, file.data.readableBytes > 0 else { return failure(.badRequest, "file is required", type: "invalid_request_error") }
        guard let model = upload.model, !model.isEmpty else { return failure(.badRequest, "model is required", type: "invalid_request_error") }
        let (fault, slow) = stub.takeFault()
        try await StubRoutes.delay(fault, slow)
        if fault == .serverError { return failure(.internalServerError, "stub failure", type: "server_error") }
        let what = "\(file.data.readableBytes) bytes named \(file.filename)"
        stub.record(OllamaStub.Recorded(path: req.url.path, model: model, numCtx: nil, keepAlive: nil, stream: false, hasFormat: false,
                                        text: what, inputs: 1, prompt: what, temperature: nil))
        return StubRoutes.json(["text": .string("Transcribed \(file.data.readableBytes) bytes with \(model)")])
    }

    static func authorize(_ req: Request, _ stub: OllamaStub) -> Response? {
        guard let key = stub.openAI.requiredKey else { return nil }
        guard req.headers.bearerAuthorization?.token == key else {
            return failure(.unauthorized, "Invalid API Key", type: "authentication_error")
        }
        return nil
    }

    static func embeddings(_ req: Request, _ stub: OllamaStub) async throws -> Response {
        if let refusal = authorize(req, stub) { return refusal }
        let body = try StubRoutes.decode(req)
        var inputs: [String] = []
        switch body.input {
        case .string(let s)?: inputs = [s]
        case .array(let a)?: inputs = a.compactMap(\.stringValue)
        default: break
        }
        StubRoutes.record(stub, req, body, text: inputs.joined(separator: "\n"), inputs: inputs.count)
        if stub.openAI.embeddingsOff {
            return failure(.notImplemented, "This server does not support embeddings. Start it with `--embeddings`", type: "not_supported_error")
        }
        let (fault, slow) = stub.takeFault()
        try await StubRoutes.delay(fault, slow)
        if fault == .serverError { return failure(.internalServerError, "stub failure", type: "server_error") }
        if fault == .modelMissing || !StubRoutes.known(body.model) {
            return failure(.notFound, "The model `\(body.model ?? "")` does not exist", type: "invalid_request_error")
        }
        // Listed last to first, each with its index: a client must order by `index`.
        let items = inputs.enumerated().reversed().map { index, text -> JSONValue in
            .object(["object": "embedding", "index": .number(Double(index)), "embedding": .array(OllamaStub.embedding(text).map { .number(Double($0)) })])
        }
        return StubRoutes.json(["object": "list", "model": .string(body.model ?? ""), "data": .array(items),
                                "usage": ["prompt_tokens": .number(Double(inputs.count)), "total_tokens": .number(Double(inputs.count))]])
    }

    static func completions(_ req: Request, _ stub: OllamaStub) async throws -> Response {
        if let refusal = authorize(req, stub) { return refusal }
        let body = try StubRoutes.decode(req)
        let messages = body.messages ?? []
        let system = messages.filter { $0.role == "system" }.map(\.content).joined(separator: "\n")
        let prompt = messages.filter { $0.role != "system" }.map { "\($0.role): \($0.content)" }.joined(separator: "\n")
        let lastUser = messages.last { $0.role == "user" }?.content ?? ""
        StubRoutes.record(stub, req, body, text: lastUser, inputs: 1)
        if stub.openAI.refusePenalty, body.repeat_penalty != nil {
            return failure(.badRequest, "Unrecognized request argument supplied: repeat_penalty", type: "invalid_request_error")
        }
        if body.response_format?["type"]?.stringValue == "json_schema", stub.openAI.refuseSchemas {
            return failure(.badRequest, "response_format type 'json_schema' is not supported; use 'json_object'", type: "invalid_request_error")
        }
        let schema = requestedSchema(body, system: system)
        let (fault, slow) = stub.takeFault()
        try await StubRoutes.delay(fault, slow)
        if fault == .serverError { return failure(.internalServerError, "stub failure", type: "server_error") }
        if fault == .modelMissing || !StubRoutes.known(body.model) {
            return failure(.notFound, "The model `\(body.model ?? "")` does not exist", type: "invalid_request_error")
        }
        var answer = StubRoutes.reply(fault: fault, schema: schema, system: system, prompt: prompt, lastUser: lastUser, stub: stub)
        var finish = "stop"
        if let limit = body.max_tokens {
            let cut = StubRoutes.truncate(answer, toTokens: limit)
            answer = cut.text
            if cut.cut { finish = "length" }
        }
        let model = body.model ?? OllamaStub.chatModel
        let tokens = StubRoutes.pieces(answer).count
        let finishReason = finish
        guard body.stream == true else {
            return StubRoutes.json(["id": "chatcmpl-stub", "object": "chat.completion", "model": .string(model),
                                    "choices": [["index": 0, "message": ["role": "assistant", "content": .string(answer)], "finish_reason": .string(finish)]],
                                    "usage": ["completion_tokens": .number(Double(tokens)), "prompt_tokens": 1, "total_tokens": .number(Double(tokens + 1))]])
        }
        return stream(answer, model: model, finish: finishReason, fault: fault, delay: stub.chunkDelay)
    }

    /// The JSON schema the answer must follow: `json_schema`'s own, or for `json_object` the one
    /// the system message carries (any object without it); nil for free text.
    static func requestedSchema(_ body: StubRoutes.Body, system: String) -> JSONValue? {
        switch body.response_format?["type"]?.stringValue {
        case "json_schema"?:
            return body.response_format?["json_schema"]?["schema"]
        case "json_object"?:
            return system.range(of: PromptMarkers.jsonSchema).flatMap { range in
                try? SeleneJSON.decode(JSONValue.self, from: Data(system[range.upperBound...].trimmingCharacters(in: .whitespacesAndNewlines).utf8))
            } ?? .object(["type": "object"])
        default:
            return nil
        }
    }

    /// The answer as server-sent events, piece by piece, with the faults a stream can have
    /// (cut after two pieces, an error event).
    static func stream(_ answer: String, model: String, finish finishReason: String, fault: OllamaStub.Fault, delay: Double) -> Response {
        let pieces = StubRoutes.pieces(answer)
        let tokens = pieces.count
        let response = Response(status: .ok)
        response.headers.replaceOrAdd(name: .contentType, value: "text/event-stream")
        @Sendable func event(_ value: JSONValue) throws -> ByteBuffer {
            ByteBuffer(data: Data("data: ".utf8) + (try SeleneJSON.encode(value)) + Data("\n\n".utf8))
        }
        @Sendable func chunk(_ delta: JSONValue, finish: String?) -> JSONValue {
            ["id": "chatcmpl-stub", "object": "chat.completion.chunk", "model": .string(model),
             "choices": [["index": 0, "delta": delta, "finish_reason": finish.map(JSONValue.string) ?? .null]]]
        }
        response.body = .init(asyncStream: { writer in
            do {
                // A keep-alive comment first, as some servers send while the prompt is read.
                try await writer.write(.buffer(ByteBuffer(string: ": keep-alive\n\n")))
                try await writer.write(.buffer(try event(chunk(["role": "assistant", "content": ""], finish: nil))))
                for (index, piece) in pieces.enumerated() {
                    if fault == .cutStream, index == 2 { try await writer.write(.end); return }
                    if fault == .streamError, index == 2 {
                        try await writer.write(.buffer(try event(["error": ["message": "stub stream failure", "type": "server_error"]])))
                        try await writer.write(.end)
                        return
                    }
                    try await writer.write(.buffer(try event(chunk(["content": .string(piece)], finish: nil))))
                    if delay > 0 { try await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000)) }
                }
                if fault == .cutStream { try await writer.write(.end); return }
                try await writer.write(.buffer(try event(chunk([:], finish: finishReason))))
                // The usage chunk: no choices.
                try await writer.write(.buffer(try event(["id": "chatcmpl-stub", "object": "chat.completion.chunk", "choices": [],
                                                          "usage": ["completion_tokens": .number(Double(tokens))]])))
                try await writer.write(.buffer(ByteBuffer(string: "data: [DONE]\n\n")))
                try await writer.write(.end)
            } catch {
                try? await writer.write(.error(error))
            }
        })
        return response
    }

    static func failure(_ status: HTTPResponseStatus, _ message: String, type: String) -> Response {
        let response = StubRoutes.json(["error": ["message": .string(message), "type": .string(type), "code": .number(Double(status.code))]])
        response.status = status
        return response
    }
}

import Foundation
import NIOCore
import SeleneShared
import Vapor

/// The model server behind Selene's auth: health, generate (whole or streamed), embed, and streamed chat.
/// 503 when no LLM is configured; 502 when it fails to answer.
struct LLMController: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        let llm = routes.grouped("llm")
        llm.get("health", use: health)
        llm.post("generate", use: generate)
        llm.post("embed", use: embed)
        llm.post("chat", use: chat)
    }

    @Sendable
    func health(req: Request) async throws -> Response {
        try json(await req.selene.llmHealth())
    }

    @Sendable
    func generate(req: Request) async throws -> Response {
        let request = try req.decodeBody(GenerateRequest.self).validated()
        let llm = try req.selene.requireLLM()
        do {
            if request.stream == true {
                return Self.ndjson(try await llm.generateStream(request.prompt, system: request.system, model: request.model, temperature: request.temperature))
            }
            let text = try await llm.generate(request.prompt, system: request.system, model: request.model, temperature: request.temperature)
            return try json(GenerateResponse(response: text, model: request.model ?? llm.settings.chatModel))
        } catch let error as LLMError {
            throw Self.failure(error, requested: request.model)
        }
    }

    @Sendable
    func embed(req: Request) async throws -> Response {
        let request = try req.decodeBody(EmbedRequest.self).validated()
        let llm = try req.selene.requireLLM()
        do {
            guard let vector = try await llm.embed([request.text], model: request.model).first else {
                throw LLMError.invalidAnswer("no embedding came back")
            }
            return try json(EmbedResponse(embedding: vector, model: request.model ?? llm.settings.embeddingModel))
        } catch let error as LLMError {
            throw Self.failure(error, requested: request.model)
        }
    }

    /// Always streamed: NDJSON `LLMStreamChunk` lines, the last `{"done": true}` or `{"error": …}`.
    @Sendable
    func chat(req: Request) async throws -> Response {
        let request = try req.decodeBody(LLMChatRequest.self).validated()
        let llm = try req.selene.requireLLM()
        do {
            return Self.ndjson(try await llm.chatStream(request.messages, model: request.model, temperature: request.temperature))
        } catch let error as LLMError {
            throw Self.failure(error, requested: request.model)
        }
    }

    /// How an LLM failure is answered: a model the request named that isn't pulled is the
    /// request's problem (400 naming `model`); a configured model that isn't pulled is the
    /// server's (503); anything else Ollama did is a bad gateway (502). Each says what to do.
    static func failure(_ error: LLMError, requested: String?) -> SeleneError {
        if case .modelMissing(let model, let server) = error {
            if model == requested {
                let field = server == .ollama ? "not pulled in Ollama: run `ollama pull \(model)`" : "not served by the model server (see its GET /v1/models)"
                return SeleneError(.badRequest, error.description, fields: ["model": field])
            }
            return SeleneError(.serviceUnavailable, error.description)
        }
        return SeleneError(.badGateway, error.description)
    }

    /// A stream of text as NDJSON lines. Errors after the first byte can't change the status, so
    /// they arrive as a final `{"error": …}` line (as Ollama's own do).
    static func ndjson(_ stream: AsyncThrowingStream<String, any Error>) -> Response {
        let response = Response(status: .ok)
        response.headers.replaceOrAdd(name: .contentType, value: "application/x-ndjson")
        response.headers.replaceOrAdd(name: .cacheControl, value: "no-store")
        response.body = .init(asyncStream: { writer in
            func line(_ chunk: LLMStreamChunk) async throws {
                var data = try SeleneJSON.encode(chunk)
                data.append(UInt8(ascii: "\n"))
                try await writer.write(.buffer(ByteBuffer(data: data)))
            }
            do {
                do {
                    for try await piece in stream { try await line(LLMStreamChunk(delta: piece)) }
                    try await line(LLMStreamChunk(done: true))
                } catch let error as LLMError {
                    try await line(LLMStreamChunk(done: true, error: error.description))
                }
                try await writer.write(.end)
            } catch {
                // The client went away: end the stream (Vapor requires it).
                try? await writer.write(.error(error))
            }
        })
        return response
    }
}

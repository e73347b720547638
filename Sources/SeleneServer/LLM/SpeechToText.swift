import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import SeleneShared

/// A local speech-to-text server speaking OpenAI's `POST /v1/audio/transcriptions` (whisper.cpp's
/// server, faster-whisper-server, LocalAI). The web app records audio and sends it here, so
/// dictation never leaves the machine (a browser's own recognition may send it to its vendor).
struct SpeechToText: Sendable {
    let settings: SeleneConfig.Speech
    let http: OutboundClient

    init(settings: SeleneConfig.Speech, http: HTTPClient, ledger: OutboundLedger? = nil) {
        self.settings = settings
        // The person's own words, spoken: in the ledger as note-derived.
        self.http = OutboundClient(http: http, ledger: ledger, purpose: "transcription", noteDerived: true)
    }

    /// The most audio one request may carry (OpenAI's limit; minutes of speech).
    static let maxBytes = 25 * 1024 * 1024

    enum Failure: Error, CustomStringConvertible {
        case unreachable(String)
        case refused(Int, String)
        case invalid(String)
        var description: String {
            switch self {
            case .unreachable(let why): "the speech-to-text server can't be reached (\(why))"
            case .refused(let status, let why): "the speech-to-text server answered \(status): \(why)"
            case .invalid(let why): "the speech-to-text server's answer isn't a transcription: \(why)"
            }
        }
    }

    /// The words in `audio`, trimmed.
    func transcribe(_ audio: ByteBuffer, contentType: String, language: String? = nil) async throws -> String {
        let boundary = "selene-\(UUID().uuidString)"
        let ext = contentType.split(separator: "/").last.map { $0.split(separator: ";").first.map(String.init) ?? "webm" } ?? "webm"
        var body = ByteBuffer()
        func field(_ name: String, _ value: String) {
            body.writeString("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n")
        }
        field("model", settings.model)
        field("response_format", "json")
        if let language { field("language", language) }
        body.writeString("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"speech.\(ext)\"\r\nContent-Type: \(contentType)\r\n\r\n")
        var audio = audio
        body.writeBuffer(&audio)
        body.writeString("\r\n--\(boundary)--\r\n")

        var request = HTTPClientRequest(url: OpenAIWire.apiBase(settings.url) + "/audio/transcriptions")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "multipart/form-data; boundary=\(boundary)")
        request.headers.add(name: "Accept", value: "application/json")
        if let key = settings.apiKey { request.headers.add(name: "Authorization", value: "Bearer \(key)") }
        request.body = .bytes(body)
        let response: HTTPClientResponse
        let data: ByteBuffer
        do {
            response = try await http.execute(request, bytesOut: body.readableBytes, timeout: .seconds(Int64(settings.timeout)), purpose: "transcription", noteDerived: true)
            data = try await response.body.collect(upTo: 4 * 1024 * 1024)
        } catch {
            throw Failure.unreachable("\(error)")
        }
        guard response.status == .ok else {
            let why = OpenAIWire.errorMessage(Data(buffer: data)) ?? String(String(buffer: data).prefix(300))
            throw Failure.refused(Int(response.status.code), why)
        }
        struct Answer: Decodable { var text: String }
        guard let answer = try? JSONDecoder().decode(Answer.self, from: Data(buffer: data)) else {
            throw Failure.invalid(String(String(buffer: data).prefix(200)))
        }
        return answer.text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

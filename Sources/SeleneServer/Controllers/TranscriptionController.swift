import Foundation
import SeleneShared
import Vapor

/// `POST /api/transcribe`: audio in (the body, `Content-Type: audio/…`), `{"text"}` out, through
/// the local speech-to-text server (SELENE_STT_URL). The web app's dictation uses the same.
struct TranscriptionController: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        routes.on(.POST, "transcribe", body: .collect(maxSize: ByteCount(value: SpeechToText.maxBytes)), use: { try await Transcription.answer($0) })
    }
}

enum Transcription {
    struct Answer: Content { var text: String }

    static func answer(_ req: Request) async throws -> Response {
        guard let speech = req.selene.speech else {
            throw SeleneError(.serviceUnavailable, "No speech-to-text is configured: set SELENE_STT_URL to a local server with /v1/audio/transcriptions (e.g. whisper.cpp's server)")
        }
        // Its own type (the speech-to-text server reads the format from it), or plain bytes
        // (whisper servers read the format from the file itself).
        guard let type = req.headers.contentType,
              type.type == "audio" || (type.type == "video" && type.subType == "webm") || (type.type == "application" && type.subType == "octet-stream") else {
            throw SeleneError(.unsupportedMediaType, "Send the recording as the body with an audio Content-Type (audio/webm, audio/ogg, audio/mp4, audio/wav, audio/mpeg) or application/octet-stream")
        }
        guard let body = req.body.data, body.readableBytes > 0 else { throw SeleneError(.badRequest, "The recording is empty") }
        guard body.readableBytes <= SpeechToText.maxBytes else {
            throw SeleneError(.payloadTooLarge, "The recording is \(body.readableBytes) bytes; at most \(SpeechToText.maxBytes) (25 MB) can be transcribed at once")
        }
        do {
            let text = try await speech.transcribe(body, contentType: "\(type.type)/\(type.subType)")
            return try json(Answer(text: text))
        } catch let failure as SpeechToText.Failure {
            throw SeleneError(.badGateway, "Couldn't transcribe: \(failure)")
        }
    }
}

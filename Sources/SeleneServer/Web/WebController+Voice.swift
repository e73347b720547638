import Fluent
import Foundation
import SeleneShared
import ServerCommon
import Vapor

/// Voice: the transcription setting and dictation.
extension WebController {
    @Sendable func voicePage(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        let speech = req.selene.config.speech.map { "\($0.model) at \($0.url)" }
        return Self.render(req, Pages.voice(current: VoiceMode.of(req), serverSpeech: speech, context: Self.context(req)))
    }

    @Sendable func setVoice(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        struct Form: Decodable { var mode: String? }
        let form = try Self.form(req, Form.self)
        guard let mode = form.mode.flatMap(VoiceMode.init(rawValue:)), mode != .server || req.selene.speech != nil else {
            throw SeleneError(.badRequest, "Choose off, the browser's recognition, or this server (when it has speech-to-text)")
        }
        let response = Self.redirect(.voice, flash: mode == .off ? "Voice input is off." : "Saved.")
        response.cookies[VoiceMode.cookie] = HTTPCookies.Value(string: mode.rawValue, maxAge: 400 * 86_400, path: "/", isSecure: req.url.scheme == "https",
                                                               isHTTPOnly: true, sameSite: .lax)
        return response
    }

    /// The web app's recorded audio to this server's speech-to-text (the CSRF token in
    /// `X-CSRF-Token`, the audio as the body).
    @Sendable func transcribe(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        try WebSession.verifyCSRF(req, submitted: req.headers.first(name: "X-CSRF-Token"))
        return try await Transcription.answer(req)
    }
}

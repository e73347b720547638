import Foundation
import OllamaStub
import SeleneShared
@testable import SeleneServer
import Testing
import VaporTesting

/// Private voice: dictation goes to a local speech-to-text server (the stub speaks OpenAI's
/// `/v1/audio/transcriptions`), never to a browser vendor; without one it says how to set it up.
@Suite("Selene: speech-to-text on this server")
struct TranscriptionTests {
    @Test("Audio in, words out through the local speech-to-text; bad input refused, nothing sent; no server: 503 naming the setting")
    func transcribe() async throws {
        try await withStub { stub in
            try await withSelene(stub: stub, adjust: { $0.speech = .init(url: stub.baseURL, model: "whisper-small") }) { app, _ in
                let audio = String(repeating: "A", count: 4_000)
                let ok = try await app.send(.POST, "/api/transcribe", raw: audio, headers: ["Content-Type": "audio/webm;codecs=opus"])
                #expect(ok.status == .ok, "\(ok.text)")
                let words = try ok.decode(Transcription.Answer.self).text
                #expect(words == "Transcribed 4000 bytes with whisper-small", "\(words)")
                let sent = try #require(stub.requests.last { $0.path == "/v1/audio/transcriptions" })
                #expect(sent.model == "whisper-small" && sent.text.contains("named speech.webm"))
                stub.clearRequests()
                let empty = try await app.send(.POST, "/api/transcribe", raw: "", headers: ["Content-Type": "audio/ogg"])
                #expect(empty.status == .badRequest && empty.text.contains("empty"))
                let notAudio = try await app.send(.POST, "/api/transcribe", raw: "hello", headers: ["Content-Type": "text/plain"])
                #expect(notAudio.status == .unsupportedMediaType && notAudio.text.contains("audio"))
                let huge = try await app.send(.POST, "/api/transcribe", raw: String(repeating: "B", count: SpeechToText.maxBytes + 1), headers: ["Content-Type": "audio/wav"])
                #expect(huge.status == .payloadTooLarge)
                #expect(stub.requests.filter { $0.path == "/v1/audio/transcriptions" }.isEmpty)
                stub.setFault(.serverError, times: 1)
                let failed = try await app.send(.POST, "/api/transcribe", raw: audio, headers: ["Content-Type": "audio/mp4"])
                #expect(failed.status == .badGateway && failed.text.contains("speech-to-text server answered 500"), "\(failed.text)")
            }
            try await withSelene(stub: stub) { app, _ in
                let none = try await app.send(.POST, "/api/transcribe", raw: "AAAA", headers: ["Content-Type": "audio/webm"])
                #expect(none.status == .serviceUnavailable && none.text.contains("SELENE_STT_URL"))
            }
        }
    }

    @Test("Settings: SELENE_STT_URL (any OpenAI-compatible speech-to-text), its model and key; a bad address is refused")
    func settings() throws {
        #expect(try SeleneConfig.fromEnvironment([:]).speech == nil)
        #expect(try SeleneConfig.fromEnvironment(["SELENE_STT_URL": "http://127.0.0.1:8080", "SELENE_STT_MODEL": "base.en", "SELENE_STT_KEY": "k"]).speech
                == SeleneConfig.Speech(url: "http://127.0.0.1:8080", model: "base.en", apiKey: "k"))
        #expect(try SeleneConfig.fromEnvironment(["SELENE_STT_URL": "http://127.0.0.1:8080/v1"]).speech?.model == "whisper-1")
        #expect { try SeleneConfig.fromEnvironment(["SELENE_STT_URL": "whisper"]) } throws: { "\($0)".contains("audio/transcriptions") }
    }
}

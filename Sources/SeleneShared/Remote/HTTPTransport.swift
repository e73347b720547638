import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where the server is and how to sign requests to it.
public struct ServerSettings: Codable, Sendable, Hashable {
    public var url: URL
    public var token: String?

    public init(url: URL, token: String?) {
        self.url = url
        self.token = token
    }

    /// Reads "host:port", "http://host:port", with or without a trailing slash; nil for anything else.
    public static func parseURL(_ text: String) -> URL? {
        var t = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if !t.contains("://") { t = "http://" + t }
        while t.hasSuffix("/"), !t.hasSuffix("://") { t.removeLast() }
        guard let url = URL(string: t), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let host = url.host, !host.isEmpty else { return nil }
        return url
    }
}

/// JSON over HTTP to the Selene server with the shared wire types. On Linux a request is never
/// cancelled (`URLSession.dataNeverCancelled`, WireCoding: the same as StitchKit's).
final class HTTPTransport: Sendable {
    let settings: ServerSettings
    let timeout: TimeInterval
    private let session: URLSession
    private let exchange: (any HTTPExchange)?
    /// The most of an answer `send` reads through an `HTTPExchange` (the server's own answers are far smaller).
    static let maxBody = 64 * 1024 * 1024

    init(settings: ServerSettings, timeout: TimeInterval, exchange: (any HTTPExchange)? = nil) {
        self.settings = settings
        self.timeout = timeout
        self.exchange = exchange
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        session = URLSession(configuration: configuration)
    }

    func makeRequest(_ method: String, _ path: String, query: [(String, String)] = [], body: Data?) throws -> URLRequest {
        guard var components = URLComponents(url: settings.url, resolvingAgainstBaseURL: false) else { throw SeleneClientError.notConfigured }
        components.path = (components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path) + path
        if !query.isEmpty { components.queryItems = query.map { URLQueryItem(name: $0.0, value: $0.1) } }
        guard let url = components.url else { throw SeleneClientError.notConfigured }
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let token = settings.token, !token.isEmpty { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        return request
    }

    /// Sends a request; answers the body of a 2xx response, or throws the typed failure.
    func send(_ method: String, _ path: String, query: [(String, String)] = [], body: (any Encodable)? = nil) async throws -> Data {
        let request = try makeRequest(method, path, query: query, body: try body.map { try SeleneJSON.encode($0) })
        let (data, response) = try await load(request)
        try Self.check(response, data: data, path: path)
        return data
    }

    func get<T: Decodable>(_ path: String, query: [(String, String)] = [], as type: T.Type = T.self) async throws -> T {
        try Self.decode(T.self, try await send("GET", path, query: query))
    }

    func post<T: Decodable>(_ path: String, _ body: any Encodable, as type: T.Type = T.self) async throws -> T {
        try Self.decode(T.self, try await send("POST", path, body: body))
    }

    static func decode<T: Decodable>(_ type: T.Type, _ data: Data) throws -> T {
        do { return try SeleneJSON.decode(T.self, from: data) } catch {
            throw SeleneClientError.invalidResponse("\(T.self): \(error)")
        }
    }

    private func load(_ request: URLRequest) async throws -> (Data, URLResponse) {
        do {
            if let exchange { return try await exchange.data(for: request, upTo: Self.maxBody) }
            return try await session.dataNeverCancelled(for: request)
        } catch {
            throw Self.transportError(error)
        }
    }

    static func transportError(_ error: any Error) -> SeleneClientError {
        if let known = error as? SeleneClientError { return known }
        switch error as? HTTPExchangeError {
        case .unreachable(let why): return .unreachable(why)
        case .tooLong: return .invalidResponse("\(error)")
        case nil: break
        }
        if let url = error as? URLError {
            switch url.code {
            case .timedOut: return .unreachable("no answer in time")
            case .cannotConnectToHost, .cannotFindHost, .networkConnectionLost, .notConnectedToInternet, .dnsLookupFailed:
                return .unreachable(url.localizedDescription)
            default: return .unreachable(url.localizedDescription)
            }
        }
        return .unreachable("\(error.localizedDescription)")
    }

    /// Maps a non-2xx answer to the typed failure, with the server's own sentence.
    static func check(_ response: URLResponse, data: Data, path: String) throws {
        guard let http = response as? HTTPURLResponse else { throw SeleneClientError.invalidResponse("not HTTP") }
        guard !(200..<300).contains(http.statusCode) else { return }
        let body = try? SeleneJSON.decode(ErrorBody.self, from: data)
        let message = body?.error ?? HTTPURLResponse.localizedString(forStatusCode: http.statusCode)
        switch http.statusCode {
        case 401: throw SeleneClientError.signedOut(message)
        case 403: throw SeleneClientError.wrongToken(message)
        case 404: throw SeleneClientError.notFound(message)
        case 502 where path.hasPrefix("/api/llm"), 503 where path.hasPrefix("/api/llm"): throw SeleneClientError.llmUnavailable(message)
        default: throw SeleneClientError.server(status: http.statusCode, message: message, fields: body?.fields ?? [:])
        }
    }

    /// A streamed answer's lines, each as it arrives (URLSession's delegate hands the body over
    /// in pieces on every platform). Throws for a refused request before anything is yielded.
    func lines(_ method: String, _ path: String, body: any Encodable) async throws -> AsyncThrowingStream<Data, any Error> {
        let request = try makeRequest(method, path, body: try SeleneJSON.encode(body))
        if let exchange { return try await lines(request, path: path, through: exchange) }
        let delegate = LineStreamDelegate(path: path)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        let stream = delegate.stream
        session.dataTask(with: request).resume()
        // The head arrives (or the connection fails) before the stream is handed out.
        try await delegate.waitForHead()
        session.finishTasksAndInvalidate()
        return stream
    }
}

extension HTTPTransport {
    /// `lines` through an `HTTPExchange`: a refused request throws its typed failure (its body
    /// read for the server's sentence) before anything is yielded.
    private func lines(_ request: URLRequest, path: String, through exchange: any HTTPExchange) async throws -> AsyncThrowingStream<Data, any Error> {
        let (response, body): (HTTPURLResponse, AsyncThrowingStream<Data, any Error>)
        do { (response, body) = try await exchange.send(request) } catch { throw Self.transportError(error) }
        guard (200..<300).contains(response.statusCode) else {
            let data = (try? await body.collected(upTo: 1024 * 1024)) ?? Data()
            try Self.check(response, data: data, path: path)
            throw SeleneClientError.invalidResponse("HTTP \(response.statusCode)")
        }
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Data.self)
        let reader = Task {
            var pending = Data()
            do {
                for try await piece in body {
                    pending.append(piece)
                    for line in Self.completeLines(of: &pending) { continuation.yield(line) }
                }
                if !pending.isEmpty { continuation.yield(pending) }
                continuation.finish()
            } catch {
                continuation.finish(throwing: Self.transportError(error))
            }
        }
        continuation.onTermination = { _ in reader.cancel() }
        return stream
    }
}

extension HTTPTransport {
    /// The complete lines at the front of `pending` (empty ones left out), taken from it; what
    /// follows the last newline stays for the next piece. Both ways of `lines` split with it.
    static func completeLines(of pending: inout Data) -> [Data] {
        var lines: [Data] = []
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            let line = Data(pending[pending.startIndex..<newline])
            pending = Data(pending[(newline + 1)...])
            if !line.isEmpty { lines.append(line) }
        }
        return lines
    }
}

/// Collects a streamed body into lines for `HTTPTransport.lines`.
private final class LineStreamDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    let path: String
    let stream: AsyncThrowingStream<Data, any Error>
    private let continuation: AsyncThrowingStream<Data, any Error>.Continuation
    private let lock = NSLock()
    private var pending = Data()
    private var headWaiter: CheckedContinuation<Void, any Error>?
    private var headResult: Result<Void, any Error>?
    private var errorBody: Data?
    private var errorResponse: URLResponse?

    init(path: String) {
        self.path = path
        (stream, continuation) = AsyncThrowingStream.makeStream(of: Data.self)
    }

    func waitForHead() async throws {
        try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
            let ready: Result<Void, any Error>? = lock.withLock {
                if let headResult { return headResult }
                headWaiter = waiter
                return nil
            }
            if let ready { waiter.resume(with: ready) }
        }
    }

    private func settleHead(_ result: Result<Void, any Error>) {
        let waiter: CheckedContinuation<Void, any Error>? = lock.withLock {
            guard headResult == nil else { return nil }
            headResult = result
            defer { headWaiter = nil }
            return headWaiter
        }
        waiter?.resume(with: result)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        if let http = response as? HTTPURLResponse, !(200..<300).contains(http.statusCode) {
            // Read the error body, then fail the head with it at completion.
            lock.withLock { errorResponse = response; errorBody = Data() }
        } else {
            settleHead(.success(()))
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        var lines: [Data] = []
        let isError: Bool = lock.withLock {
            if errorBody != nil { errorBody!.append(data); return true }
            pending.append(data)
            lines = HTTPTransport.completeLines(of: &pending)
            return false
        }
        guard !isError else { return }
        for line in lines { continuation.yield(line) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (response, body, rest) = lock.withLock { (errorResponse, errorBody, pending) }
        if let error {
            let failure = HTTPTransport.transportError(error)
            settleHead(.failure(failure))
            continuation.finish(throwing: failure)
            return
        }
        if let response, let body {
            do {
                try HTTPTransport.check(response, data: body, path: path)
            } catch {
                settleHead(.failure(error))
                continuation.finish(throwing: error)
                return
            }
        }
        settleHead(.success(()))
        if !rest.isEmpty { continuation.yield(rest) }
        continuation.finish()
    }
}

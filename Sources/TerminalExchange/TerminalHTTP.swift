import AsyncHTTPClient
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import WireCoding

/// How the terminal clients' requests reach their server on Linux (`selene`, `stitch`):
/// AsyncHTTPClient, not swift-corelibs-foundation's URLSession, which keeps a core busy for as
/// long as it waits for an answer (measured: `selene chat` used 11 s of CPU over a 9 s answer,
/// 1.2 cores, taking them from the local model writing it). Each request's `timeoutInterval` is
/// how long the server may stay silent, as with URLSession; a streamed answer may take longer as
/// a whole. No redirects are followed.
public struct TerminalHTTP: HTTPExchange {
    /// The one the commands use (nil where URLSession doesn't busy-wait: Apple platforms).
    public static var exchange: (any HTTPExchange)? {
        #if canImport(FoundationNetworking)
        TerminalHTTP()
        #else
        nil
        #endif
    }

    /// One client per silence bound, for the process's life: a command ends the process, and a
    /// client kept in a static is never deinitialised unshut (AsyncHTTPClient asserts on that).
    private static let clients = NIOLockedValueBox<[Int64: HTTPClient]>([:])

    private static func client(silence: TimeInterval) -> HTTPClient {
        let millis = Int64(max(silence, 1) * 1000)
        return clients.withLockedValue { clients in
            if let client = clients[millis] { return client }
            var configuration = HTTPClient.Configuration()
            configuration.timeout = .init(connect: .milliseconds(min(millis, 10_000)), read: .milliseconds(millis))
            configuration.redirectConfiguration = .disallow
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            clients[millis] = client
            return client
        }
    }

    public init() {}

    public func send(_ request: URLRequest) async throws -> (HTTPURLResponse, AsyncThrowingStream<Data, any Error>) {
        guard let url = request.url else { throw HTTPExchangeError.unreachable("no server address") }
        var outgoing = HTTPClientRequest(url: url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.httpMethod ?? "GET")
        for (name, value) in request.allHTTPHeaderFields ?? [:] { outgoing.headers.add(name: name, value: value) }
        if let body = request.httpBody { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        let response: HTTPClientResponse
        do {
            response = try await Self.client(silence: request.timeoutInterval).execute(outgoing, deadline: .distantFuture)
        } catch {
            throw Self.failure(error, url: url)
        }
        var fields: [String: String] = [:]
        for (name, value) in response.headers { fields[name] = fields[name].map { "\($0), \(value)" } ?? value }
        guard let head = HTTPURLResponse(url: url, statusCode: Int(response.status.code), httpVersion: "HTTP/1.1", headerFields: fields) else {
            throw HTTPExchangeError.unreachable("\(url.host ?? "the server") did not answer in HTTP")
        }
        let (body, continuation) = AsyncThrowingStream.makeStream(of: Data.self)
        let reader = Task {
            do {
                for try await buffer in response.body { continuation.yield(Data(buffer.readableBytesView)) }
                continuation.finish()
            } catch {
                continuation.finish(throwing: Self.failure(error, url: url))
            }
        }
        continuation.onTermination = { _ in reader.cancel() }
        return (head, body)
    }

    /// What a person reads when the server can't be reached or stops answering.
    static func failure(_ error: any Error, url: URL) -> HTTPExchangeError {
        let server = "\(url.host ?? "the server")\(url.port.map { ":\($0)" } ?? "")"
        if let client = error as? HTTPClientError, [.readTimeout, .connectTimeout, .deadlineExceeded].contains(client) {
            return .unreachable("no answer from \(server) in time")
        }
        return .unreachable("no connection to \(server): \(error)")
    }
}

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Another way for a request to reach a server than URLSession: it sends the request and hands
/// back the answer's head, then its body in pieces as they arrive. Both products' terminal
/// clients (`selene`, `stitch`) give one on Linux (`TerminalHTTP`, AsyncHTTPClient):
/// swift-corelibs-foundation's URLSession keeps a core busy for as long as it waits for an
/// answer — a chat answered by a local model took a core from the model writing it. Apps on
/// Apple platforms use URLSession (nil).
public protocol HTTPExchange: Sendable {
    /// Sends a request and answers its head and its body as it arrives.
    /// - Parameter request: its URL, method, headers and body; its `timeoutInterval` is how long
    ///   the server may stay silent.
    /// - Returns: the answer's head, and its body in pieces (throwing if the connection fails mid-way).
    /// - Throws: `HTTPExchangeError.unreachable` when there is no answer at all.
    func send(_ request: URLRequest) async throws -> (HTTPURLResponse, AsyncThrowingStream<Data, any Error>)
}

/// Why an `HTTPExchange` has no (whole) answer; each client says it in its own words.
public enum HTTPExchangeError: Error, Equatable, CustomStringConvertible {
    /// No connection, or the server stayed silent longer than the request allows.
    case unreachable(String)
    /// The answer ran past the most a client reads (`limit` bytes).
    case tooLong(limit: Int)

    public var description: String {
        switch self {
        case .unreachable(let why): why
        case .tooLong(let limit): "an answer longer than \(limit / 1024 / 1024) MB"
        }
    }
}

extension HTTPExchange {
    /// The request's answer read whole, at most `limit` bytes (`HTTPExchangeError.tooLong` past it).
    public func data(for request: URLRequest, upTo limit: Int) async throws -> (Data, HTTPURLResponse) {
        let (response, body) = try await send(request)
        return (try await body.collected(upTo: limit), response)
    }
}

extension AsyncThrowingStream where Element == Data, Failure == any Error {
    /// The pieces read whole, at most `limit` bytes (`HTTPExchangeError.tooLong` past it).
    public func collected(upTo limit: Int) async throws -> Data {
        var data = Data()
        for try await piece in self {
            data.append(piece)
            if data.count > limit { throw HTTPExchangeError.tooLong(limit: limit) }
        }
        return data
    }
}

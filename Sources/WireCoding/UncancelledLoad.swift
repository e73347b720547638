import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSession {
    /// `data(for:)`, never cancelled on Linux: swift-corelibs-foundation's URLSession crashes the
    /// process ("a task that is not in the registry") or never answers when a task is cancelled as
    /// it completes, so there the request runs in a task of its own and a cancelled caller goes on
    /// waiting until it ends (at most its timeout), the answer simply not used. On Apple platforms
    /// it is `data(for:)` itself. The one place both products' clients (StitchKit, SeleneShared)
    /// load a request.
    public func dataNeverCancelled(for request: URLRequest) async throws -> (Data, URLResponse) {
        #if canImport(FoundationNetworking)
        let session = self
        return try await Task.detached { try await session.data(for: request) }.value
        #else
        return try await data(for: request)
        #endif
    }
}

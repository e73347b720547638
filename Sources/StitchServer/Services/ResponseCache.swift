import Foundation
import NIOConcurrencyHelpers
import NIOCore
import Vapor

/// Rendered list pages kept per user and query until the user's data changes. Every write to a
/// user's records takes the next value of the user's sync version (in the same transaction), and
/// the version is read when the request is authenticated, before any row is, so a page cached
/// under version v can only hold data as new as v or newer — never older. Bounded by bytes, the
/// least recently used pages go first.
public final class ResponseCache: Sendable {
    struct Entry {
        var version: Int64
        var body: ByteBuffer
        var lastUse: UInt64
    }

    struct State {
        var entries: [String: Entry] = [:]
        var bytes = 0
        var tick: UInt64 = 0
    }

    public let maxBytes: Int
    private let state = NIOLockedValueBox(State())

    public init(maxBytes: Int) { self.maxBytes = maxBytes }

    func get(_ key: String, version: Int64) -> ByteBuffer? {
        state.withLockedValue { state in
            guard var entry = state.entries[key], entry.version == version else { return nil }
            state.tick += 1
            entry.lastUse = state.tick
            state.entries[key] = entry
            return entry.body
        }
    }

    func put(_ key: String, version: Int64, body: ByteBuffer) {
        let size = body.readableBytes + key.utf8.count
        guard maxBytes > 0, size <= maxBytes / 4 else { return }
        state.withLockedValue { state in
            if let old = state.entries.removeValue(forKey: key) {
                // A slower request that read an older version must not replace a newer page.
                if old.version > version {
                    state.entries[key] = old
                    return
                }
                state.bytes -= old.body.readableBytes + key.utf8.count
            }
            while state.bytes + size > maxBytes, let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
                state.entries.removeValue(forKey: oldest.key)
                state.bytes -= oldest.value.body.readableBytes + oldest.key.utf8.count
            }
            state.tick += 1
            state.entries[key] = Entry(version: version, body: body, lastUse: state.tick)
            state.bytes += size
        }
    }

    /// Drops every page of one user's (a deleted account's pages must not outlive it).
    func forget(userId: UUID) {
        let prefix = userId.text + "|"
        state.withLockedValue { state in
            for (key, entry) in state.entries where key.hasPrefix(prefix) {
                state.entries.removeValue(forKey: key)
                state.bytes -= entry.body.readableBytes + key.utf8.count
            }
        }
    }

    public var storedBytes: Int { state.withLockedValue { $0.bytes } }
}

extension Application {
    private struct ResponseCacheKey: StorageKey { typealias Value = ResponseCache }

    public var responseCache: ResponseCache {
        get { storage[ResponseCacheKey.self] ?? ResponseCache(maxBytes: 0) }
        set { storage[ResponseCacheKey.self] = newValue }
    }
}

/// Whether an `If-None-Match` value (entity tags separated by commas and optional spaces, or `*`)
/// names `etag` (RFC 9110 §13.1.2). Compared as bytes: splitting and trimming `String`s was a sixth of a 304's work.
func ifNoneMatch(_ value: String, contains etag: String) -> Bool {
    let tag = etag.utf8
    for candidate in value.utf8.split(separator: UInt8(ascii: ",")) {
        var candidate = candidate[...]
        while let first = candidate.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") { candidate.removeFirst() }
        while let last = candidate.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { candidate.removeLast() }
        // If-None-Match compares weakly: `W/"x"` names the same page as `"x"`.
        if candidate.starts(with: "W/".utf8) { candidate = candidate.dropFirst(2) }
        if candidate.elementsEqual(tag) || candidate.elementsEqual("*".utf8) { return true }
    }
    return false
}

/// 32-bit FNV-1a of the text's UTF-8 bytes.
func fnv1a(_ text: String) -> UInt32 {
    var hash: UInt32 = 2_166_136_261
    for byte in text.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
    return hash
}

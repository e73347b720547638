import CVectorDot
import Fluent
import Foundation
import SeleneShared
import SQLKit

/// Every note's embedding of the current model, in memory, normalised, for similarity search
/// without reading vectors from the database. Loaded from `note_embeddings` on first use and kept
/// current: this process's writes go in directly, other processes' (PostgreSQL) by a refresh of
/// recently written rows before a search.
public final class VectorIndex: @unchecked Sendable {
    /// What a search may be narrowed to.
    public struct Filter: Sendable, Hashable {
        public var noteType: NoteType?
        public var actionability: Actionability?
        /// Only these notes (those written in a time asked about).
        public var only: Set<Int>?
        public init(noteType: NoteType? = nil, actionability: Actionability? = nil, only: Set<Int>? = nil) {
            self.noteType = noteType
            self.actionability = actionability
            self.only = only
        }
    }

    public let model: String?
    private let lock = ReadWriteLock()
    private var dimension = 0
    private var ids: [Int] = []
    private var vectors: [Float] = []
    /// Each vector again in 8 bits (`codes[i] × scales[row]` ≈ `vectors[i]`): a large search scans
    /// these, a quarter of the memory, and scores its best candidates again in full.
    private var codes: [Int8] = []
    private var scales: [Float] = []
    private var types: [UInt8] = []
    private var actionabilities: [UInt8] = []
    private var embeddedAt: [Date] = []
    private var position: [Int: Int] = [:]
    private var lastRefresh: Date?
    private let refreshLock = NSLock()

    /// Rows written this long before the last refresh are read again, so a slow transaction of
    /// another process that committed late is not missed.
    static let refreshOverlap: TimeInterval = 30
    static let refreshInterval: TimeInterval = 1
    /// From this many vectors a search scans the 8-bit codes first (below it the full scan is
    /// already under a couple of milliseconds).
    static let quantizedFrom = 20_000

    /// Where the vectors are stored, and how many ids one note has: the notes' own vectors
    /// (`note_embeddings`, id = note id) or their chunks' (`note_chunk_embeddings`, id = note id ×
    /// 64 + chunk, so `id / idsPerNote` is the note).
    let table: String
    let idsPerNote: Int

    init(model: String?, chunks: Bool = false) {
        self.model = model
        table = chunks ? "note_chunk_embeddings" : "note_embeddings"
        idsPerNote = chunks ? ProcessingPrompts.maxChunks + 1 : 1
    }

    /// A chunk's id in a chunk index.
    public func chunkId(note: Int, chunk: Int) -> Int { note * idsPerNote + chunk }

    public var count: Int { lock.read { ids.count } }
    public var currentDimension: Int { lock.read { dimension } }

    // MARK: Writes

    /// Adds or replaces a note's vector (it must be of `model`).
    public func upsert(id: Int, vector: [Float], noteType: NoteType?, actionability: Actionability?, embeddedAt date: Date) {
        let v = VectorUtility.normalized(vector)
        lock.write {
            if dimension == 0 || ids.isEmpty { dimension = v.count }
            guard v.count == dimension else { return }
            let t = noteType.map { UInt8(NoteType.allCases.firstIndex(of: $0)! + 1) } ?? 0
            let a = actionability.map { UInt8(Actionability.allCases.firstIndex(of: $0)! + 1) } ?? 0
            let (code, scale) = Quantized.encode(v)
            if let row = position[id] {
                vectors.replaceSubrange(row * dimension..<(row + 1) * dimension, with: v)
                codes.replaceSubrange(row * dimension..<(row + 1) * dimension, with: code)
                scales[row] = scale
                types[row] = t
                actionabilities[row] = a
                embeddedAt[row] = date
            } else {
                position[id] = ids.count
                ids.append(id)
                vectors.append(contentsOf: v)
                codes.append(contentsOf: code)
                scales.append(scale)
                types.append(t)
                actionabilities.append(a)
                embeddedAt.append(date)
            }
        }
    }

    /// Forgets a note (its embedding was removed or is of another model now).
    public func remove(id: Int) {
        lock.write {
            guard let row = position.removeValue(forKey: id) else { return }
            let last = ids.count - 1
            if row != last {
                let moved = ids[last]
                ids[row] = moved
                vectors.replaceSubrange(row * dimension..<(row + 1) * dimension, with: vectors[last * dimension..<(last + 1) * dimension])
                codes.replaceSubrange(row * dimension..<(row + 1) * dimension, with: codes[last * dimension..<(last + 1) * dimension])
                scales[row] = scales[last]
                types[row] = types[last]
                actionabilities[row] = actionabilities[last]
                embeddedAt[row] = embeddedAt[last]
                position[moved] = row
            }
            ids.removeLast()
            vectors.removeLast(dimension)
            codes.removeLast(dimension)
            scales.removeLast()
            types.removeLast()
            actionabilities.removeLast()
            embeddedAt.removeLast()
        }
    }

    /// Forgets every vector of a note (in a chunk index, all its chunks).
    public func removeNote(_ noteId: Int) {
        for id in noteId * idsPerNote..<(noteId + 1) * idsPerNote { remove(id: id) }
    }

    public func removeAll() {
        lock.write {
            ids = []; vectors = []; codes = []; scales = []; types = []; actionabilities = []; embeddedAt = []; position = [:]; dimension = 0
            lastRefresh = nil
        }
    }

    // MARK: Reads

    public func vector(for id: Int) -> [Float]? {
        lock.read {
            guard let row = position[id] else { return nil }
            return Array(vectors[row * dimension..<(row + 1) * dimension])
        }
    }

    /// The `k` notes most similar to `query` (cosine), best first, leaving out `excluding`.
    ///
    /// A large index (`quantizedFrom`) is scanned in its 8-bit codes for a few times `k`
    /// candidates, which are then scored in full: the same answer as scanning every vector in full
    /// (`exhaustive`) unless the 8-bit error reorders notes near the edge of the candidates, which
    /// their margin makes rare (checked against the full scan in RetrievalTests).
    public func search(_ query: [Float], k: Int, filter: Filter = Filter(), excluding: Set<Int> = [],
                       minimumSimilarity: Double = -1, exhaustive: Bool = false) -> [(id: Int, similarity: Double)] {
        let q = VectorUtility.normalized(query)
        return lock.read { () -> [(id: Int, similarity: Double)] in
            guard dimension > 0, q.count == dimension, !ids.isEmpty, k > 0 else { return [] }
            let wantType = filter.noteType.map { UInt8(NoteType.allCases.firstIndex(of: $0)! + 1) }
            let wantAction = filter.actionability.map { UInt8(Actionability.allCases.firstIndex(of: $0)! + 1) }
            let n = ids.count, d = dimension
            let parts = n > 20_000 ? 2 : 1
            let keep = k + excluding.count
            let floor = Float(minimumSimilarity)
            let quantized = !exhaustive && n >= Self.quantizedFrom
            let (qCode, qScale) = quantized ? Quantized.encode(q) : ([0], 0)
            let candidates = quantized ? keep * Quantized.oversampling + Quantized.extraCandidates : keep
            let results = ScanResults(parts: parts)
            q.withUnsafeBufferPointer { qp in vectors.withUnsafeBufferPointer { vp in qCode.withUnsafeBufferPointer { qc in
                codes.withUnsafeBufferPointer { cp in scales.withUnsafeBufferPointer { sp in
                    types.withUnsafeBufferPointer { tp in actionabilities.withUnsafeBufferPointer { ap in
                        let scan = Scan(query: qp.baseAddress!, vectors: vp.baseAddress!, queryCode: qc.baseAddress!, queryScale: qScale,
                                        codes: cp.baseAddress!, scales: sp.baseAddress!, types: tp.baseAddress!,
                                        actionabilities: ap.baseAddress!, dimension: d)
                        // The 8-bit score is off by at most a few hundredths: candidates just under
                        // the floor are kept for their full score to decide.
                        let roughFloor = floor - Quantized.margin
                        let only = filter.only, ids = self.ids, perNote = idsPerNote
                        DispatchQueue.concurrentPerform(iterations: parts) { part in
                            let lo = n * part / parts, hi = n * (part + 1) / parts
                            var top = TopK(k: candidates)
                            for row in lo..<hi {
                                if let wantType, scan.types[row] != wantType { continue }
                                if let wantAction, scan.actionabilities[row] != wantAction { continue }
                                if let only, !only.contains(ids[row] / perNote) { continue }
                                if quantized {
                                    let s = Float(Quantized.dot(scan.queryCode, scan.codes + row * scan.dimension, count: scan.dimension))
                                        * scan.queryScale * scan.scales[row]
                                    if s >= roughFloor { top.offer(s, row) }
                                } else {
                                    let s = VectorUtility.dot(scan.query, scan.vectors + row * scan.dimension, count: scan.dimension)
                                    if s >= floor { top.offer(s, row) }
                                }
                            }
                            if quantized {
                                // Each candidate scored in full.
                                var exact = TopK(k: keep)
                                for (_, row) in top.items {
                                    let s = VectorUtility.dot(scan.query, scan.vectors + row * scan.dimension, count: scan.dimension)
                                    if s >= floor { exact.offer(s, row) }
                                }
                                top = exact
                            }
                            results.set(part, top.items)
                        }
                    } }
                } }
            } } }
            let partial = results.all
            var merged = partial.flatMap { $0 }.sorted { $0.0 > $1.0 || ($0.0 == $1.0 && ids[$0.1] > ids[$1.1]) }
            merged.removeAll { excluding.contains(ids[$0.1]) }
            return merged.prefix(k).map { (id: ids[$0.1], similarity: Double($0.0)) }
        }
    }

    // MARK: Loading

    /// Makes sure the index holds every stored embedding of `model`: all of them the first time,
    /// then those written since shortly before the last refresh (at most once a second).
    public func refresh(on db: any Database, now: Date, force: Bool = false) async throws {
        guard let model else { return }
        let since: Date? = refreshLock.withLock {
            if !force, let last = lastRefresh, now.timeIntervalSince(last) < Self.refreshInterval, now >= last { return Date.distantFuture }
            defer { lastRefresh = now }
            return lastRefresh.map { $0.addingTimeInterval(-Self.refreshOverlap) }
        }
        if since == .distantFuture { return }
        let sql = db.sql
        // Which rows changed: ids and times only, then vectors for those not already held.
        let window: SQLQueryString = since.map { "AND embedded_at >= \(bind: $0)" } ?? ""
        let idColumn: SQLQueryString = idsPerNote == 1 ? "note_id" : "note_id * \(unsafeRaw: String(idsPerNote)) + chunk"
        let rows = try await sql.raw("SELECT " + idColumn + " AS id, embedded_at FROM \(unsafeRaw: table) WHERE model = \(bind: model) " + window).all()
        var wanted: [Int] = []
        for row in rows {
            let id = try row.decode(column: "id", as: Int.self)
            let at = try row.decode(column: "embedded_at", as: Date.self)
            let held = lock.read { position[id].map { embeddedAt[$0] } }
            if held != at { wanted.append(id) }
        }
        for start in stride(from: 0, to: wanted.count, by: 1000) {
            // By note: a chunk index reads every chunk of the notes wanted.
            let notes = Array(Set(wanted[start..<min(start + 1000, wanted.count)].map { $0 / idsPerNote }))
            let chunk: SQLQueryString = idsPerNote == 1 ? "0" : "e.chunk"
            let vectors = try await sql.raw("""
                SELECT e.note_id, \(chunk) AS chunk, e.vector, e.embedded_at, p.note_type, p.actionability FROM \(unsafeRaw: table) e
                LEFT JOIN processed_notes p ON p.note_id = e.note_id
                WHERE e.model = \(bind: model) AND e.note_id IN (\(binds: notes))
                """).all()
            for row in vectors {
                upsert(id: chunkId(note: try row.decode(column: "note_id", as: Int.self), chunk: try row.decode(column: "chunk", as: Int.self)),
                       vector: VectorCoding.decode(try row.decode(column: "vector", as: Data.self)),
                       noteType: try row.decode(column: "note_type", as: String?.self).flatMap(NoteType.init(rawValue:)),
                       actionability: try row.decode(column: "actionability", as: String?.self).flatMap(Actionability.init(rawValue:)),
                       embeddedAt: try row.decode(column: "embedded_at", as: Date.self))
            }
        }
        if since == nil {
            // A full load also drops what is no longer stored under this model (a reindex elsewhere).
            let stored = Set(try rows.map { try $0.decode(column: "id", as: Int.self) })
            for id in lock.read({ ids }) where !stored.contains(id) { remove(id: id) }
        }
    }
}

/// Borrowed pointers for one search's parallel scan; valid for its duration only.
private struct Scan: @unchecked Sendable {
    let query: UnsafePointer<Float>
    let vectors: UnsafePointer<Float>
    let queryCode: UnsafePointer<Int8>
    let queryScale: Float
    let codes: UnsafePointer<Int8>
    let scales: UnsafePointer<Float>
    let types: UnsafePointer<UInt8>
    let actionabilities: UnsafePointer<UInt8>
    let dimension: Int
}

/// A vector in 8 bits: each component as a whole number in −127…127 times the vector's scale
/// (its largest component / 127). Two codes' product needs no conversion to Float: a
/// component's product fits 16 bits, the sum 32.
enum Quantized {
    /// Candidates the 8-bit pass keeps for each result wanted, and a few more for a small `k`.
    static let oversampling = 4
    static let extraCandidates = 32
    /// How far below a search's floor an 8-bit score may be and its full score still reach it.
    static let margin: Float = 0.05

    static func encode(_ v: [Float]) -> (codes: [Int8], scale: Float) {
        let largest = v.reduce(Float(0)) { max($0, abs($1)) }
        // All zero, or so small that a 127th of it is no number (a model server's 1e-44s): zero
        // codes, never a division by zero.
        let scale = largest / 127
        guard scale > 0, scale.isFinite else { return (Array(repeating: 0, count: v.count), 0) }
        return (v.map { Int8(clamping: Int(($0 / scale).rounded())) }, scale)
    }

    /// The codes' dot product (CVectorDot: AVX2 where the processor has it).
    static func dot(_ a: UnsafePointer<Int8>, _ b: UnsafePointer<Int8>, count: Int) -> Int32 {
        selene_dot_i8(a, b, count)
    }
}

/// Each part's best rows, written by its own scan.
private final class ScanResults: @unchecked Sendable {
    private let lock = NSLock()
    private var parts: [[(Float, Int)]]
    init(parts: Int) { self.parts = Array(repeating: [], count: parts) }
    func set(_ part: Int, _ items: [(Float, Int)]) { lock.withLock { parts[part] = items } }
    var all: [[(Float, Int)]] { lock.withLock { parts } }
}

/// The k best (score, row) pairs seen, kept in a small sorted buffer.
struct TopK {
    let k: Int
    private(set) var items: [(Float, Int)] = []
    init(k: Int) { self.k = k; items.reserveCapacity(k + 1) }

    mutating func offer(_ score: Float, _ row: Int) {
        if items.count == k, let worst = items.last, score <= worst.0 { return }
        var i = items.count
        items.append((score, row))
        while i > 0, items[i - 1].0 < score { items[i] = items[i - 1]; i -= 1 }
        items[i] = (score, row)
        if items.count > k { items.removeLast() }
    }
}

/// Many readers or one writer.
final class ReadWriteLock: @unchecked Sendable {
    private let lock: UnsafeMutablePointer<pthread_rwlock_t>
    init() {
        lock = .allocate(capacity: 1)
        lock.initialize(to: pthread_rwlock_t())
        pthread_rwlock_init(lock, nil)
    }
    deinit {
        pthread_rwlock_destroy(lock)
        lock.deallocate()
    }
    func read<T>(_ body: () throws -> T) rethrows -> T {
        pthread_rwlock_rdlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body()
    }
    func write<T>(_ body: () throws -> T) rethrows -> T {
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body()
    }
}

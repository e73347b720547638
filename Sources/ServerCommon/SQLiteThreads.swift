import Fluent
import NIOPosix
import Vapor

extension Application {
    /// Gives the application a thread pool of its own, with room for every SQLite connection at
    /// once and two more. Call it before the first use of `databases`, which keeps the pool it
    /// was made with; Vapor starts the pool and shuts it down with the application.
    ///
    /// SQLite's calls run on the application's thread pool, and a connection that waits for the
    /// write lock spins in sqlite-nio's busy handler on one of its threads. NIO's shared pool has
    /// a thread per core, shared by every application in the process (and by file I/O): waiters
    /// could take all of them and leave the writer they wait for without a thread to commit on —
    /// a process spinning both cores until something gives up. With a thread per connection no
    /// connection waits for a thread, and file reads and password hashing keep theirs.
    public func giveSQLiteItsOwnThreads() {
        let loops = eventLoopGroup.makeIterator().reduce(0) { count, _ in count + 1 }
        threadPool = NIOThreadPool(numberOfThreads: loops + 2)
    }
}

/// Closes the application's databases at shutdown, before Vapor shuts down what its storage holds.
/// Vapor shuts those down — the thread pool, the databases — in no fixed order (a dictionary's),
/// and closing a SQLite connection runs on the thread pool: with the pool shut down first, open
/// connections can't close, and sqlite-nio asserts on an unclosed connection (a debug build's test
/// process crashed so in CI: "SQLiteConnection was not closed before deinitializing", after "Thread
/// pool is inactive"). Registered before every other handler, it runs after them all (handlers
/// shut down in reverse), so background work that reads the database has stopped first.
/// Closing twice is nothing: Fluent's `Databases.shutdownAsync` empties its drivers.
public struct CloseDatabasesAtShutdown: LifecycleHandler {
    public init() {}

    public func shutdownAsync(_ application: Application) async {
        await application.databases.shutdownAsync()
    }
}

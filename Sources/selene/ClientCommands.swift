import ArgumentParser

/// The terminal client's commands (chat, note, search, briefing, threads).
enum ClientCommands {
    static let all: [any ParsableCommand.Type] = []
}

// Vapor's ConsoleKit has property wrappers of the same names; this executable means ArgumentParser's.
typealias Option<Value> = ArgumentParser.Option<Value>
typealias Flag<Value> = ArgumentParser.Flag<Value>
typealias Argument<Value> = ArgumentParser.Argument<Value>

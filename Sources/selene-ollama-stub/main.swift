import Foundation
import OllamaStub

// An Ollama-protocol server for the browser tests: `selene-ollama-stub PORT` (0 or none: any
// free port). Prints `listening on PORT` once ready; faults via POST /_stub/fault.
let port = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 0
let stub = try await OllamaStub.start(port: port)
FileHandle.standardOutput.write(Data("listening on \(stub.port)\n".utf8))
while true { try await Task.sleep(nanoseconds: 3_600_000_000_000) }

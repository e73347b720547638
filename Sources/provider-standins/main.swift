import Foundation
import ProviderStandIns

// Apple, Instagram and TikTok for the browser tests: `provider-standins [PORT]` (0 or none: any
// free port), with the web app's settings. Prints one line of JSON once ready — its address and
// the Stitchuation server's environment pointing at it (`{site}` for the site's own address).
let port = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 0
let standIns = try await ProviderStandIns.start(.web, port: port)
let line = try JSONSerialization.data(withJSONObject: ["base": standIns.baseURL, "env": standIns.environment], options: [.sortedKeys])
FileHandle.standardOutput.write(line + Data("\n".utf8))
while true { try await Task.sleep(nanoseconds: 3_600_000_000_000) }

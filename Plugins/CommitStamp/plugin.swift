import Foundation
import PackagePlugin

/// Writes the commit the package is built from into the `BuildStamp` module (`buildCommit`):
/// `git rev-parse --short=12 HEAD`, with `-modified` when tracked files differ from it, and
/// "unknown" outside a Git checkout (a source archive). Runs before every build but rewrites the
/// file only when the line changes, so an unchanged tree recompiles nothing.
@main
struct CommitStamp: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("stamp")
        let script = #"""
        c=$(git -C "$1" rev-parse --short=12 HEAD 2>/dev/null) || c=unknown
        if [ "$c" != unknown ] && [ -n "$(git -C "$1" --no-optional-locks status --porcelain --untracked-files=no 2>/dev/null)" ]; then c="$c-modified"; fi
        line="let buildCommit = \"$c\""
        mkdir -p "$2"
        [ "$(cat "$2/BuildCommit.swift" 2>/dev/null)" = "$line" ] || printf '%s\n' "$line" > "$2/BuildCommit.swift"
        """#
        return [.prebuildCommand(
            displayName: "Stamping the commit the build is made from",
            executable: URL(fileURLWithPath: "/bin/sh"),
            arguments: ["-c", script, "commit-stamp", context.package.directoryURL.path, output.path],
            outputFilesDirectory: output)]
    }
}

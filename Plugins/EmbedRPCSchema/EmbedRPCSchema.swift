import Foundation
import PackagePlugin

/// Builds rpc-schema/openrpc.json into the target it is applied to, as `EmbeddedOpenRPC.text`, so the document
/// the daemon serves with rpc.discover is the file in the repository, not a copy.
@main
struct EmbedRPCSchema: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let input = context.package.directoryURL.appending(path: "rpc-schema").appending(path: "openrpc.json")
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedOpenRPC.swift")
        return [
            .buildCommand(
                displayName: "Embedding rpc-schema/openrpc.json",
                executable: try context.tool(named: "EmbedFile").url,
                arguments: [input.path, output.path, "EmbeddedOpenRPC"],
                inputFiles: [input],
                outputFiles: [output]
            )
        ]
    }
}

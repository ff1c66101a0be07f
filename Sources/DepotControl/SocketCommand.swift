import ArgumentParser
import DepotPlatform

/// `depotctl socket`: the path depotctl would connect to, for scripts that talk to depotd themselves
/// (`socat - UNIX-CONNECT:"$(depotctl socket)"`), so every tool finds the daemon the same way.
struct SocketCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "socket",
        abstract: "Print the path of the socket depotctl would connect to.",
        discussion: """
            --socket, else -n NAME's /run/depot/NAME.sock, else $DEPOT_SOCKET, else where depotd puts it by default ($RUNTIME_DIRECTORY/depotd.sock, \
            $XDG_RUNTIME_DIR/depot/depotd.sock, /run/depot/depotd.sock for root, /tmp/depot-$UID/depotd.sock for \
            others); when nothing is at that default, the system daemon's /run/depot/depotd.sock if it is there. \
            Prints the path whether or not a daemon listens on it.
            """
    )

    @OptionGroup var options: ConnectionOptions

    func run() async throws {
        Output.line(try options.socketPath())
    }
}

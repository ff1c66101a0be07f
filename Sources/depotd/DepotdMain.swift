import ArgumentParser
import DepotDaemon

/// depotd's entry point; everything else lives in DepotDaemon so that it can be tested.
@main
struct DepotdMain {
    static func main() async {
        await DepotDaemonCommand.main()
    }
}

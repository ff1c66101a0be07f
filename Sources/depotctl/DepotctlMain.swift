import ArgumentParser
import DepotControl

#if canImport(Glibc)
import Glibc
#endif

/// depotctl's entry point; the commands live in DepotControl so that they can be tested.
@main
struct DepotctlMain {
    static func main() async {
        // A closed stdout is an EPIPE that Output handles, not a signal that kills depotctl mid-line.
        signal(SIGPIPE, SIG_IGN)
        await DepotControlCommand.main()
    }
}

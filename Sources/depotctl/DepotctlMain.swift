import ArgumentParser
import DepotControl

/// depotctl's entry point; the commands live in DepotControl so that they can be tested.
@main
struct DepotctlMain {
    static func main() async {
        await DepotControlCommand.main()
    }
}

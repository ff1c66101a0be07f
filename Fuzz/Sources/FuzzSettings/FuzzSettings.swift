import DepotDaemon
import DepotPlatform
import FuzzDriver

#if canImport(Glibc)
import Glibc
#endif

/// Where each input is written as depotd.json: in the fuzzer's own directory under /dev/shm (a memory file system).
private let directory: String = {
    let path = "/dev/shm/depot-fuzz-settings-\(getpid())"
    mkdir(path, 0o700)
    return path
}()

/// `--config PATH`, parsed once (ArgumentParser's reflection would otherwise be most of each run).
private let options: DaemonOptions = {
    guard let options = try? DaemonOptions.parse(["--config", directory + "/depotd.json"]) else { fatalError("--config PATH must parse") }
    return options
}()

/// Writes the input as a config file and resolves depotd's settings from it, as depotd does at start and on
/// reload: any bytes give settings or a ConfigurationError, never a crash.
func fuzzSettings(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let path = directory + "/depotd.json"
    let input = bytes(start, count)
    // A plain write: the file is read back at once, and an fsync per input would be all the fuzzer measured.
    let file = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard file >= 0, input.withUnsafeBytes({ write(file, $0.baseAddress, $0.count) }) == input.count || input.isEmpty else {
        fatalError("cannot write \(path)")
    }
    close(file)
    let paths = RuntimePaths(environment: ["XDG_RUNTIME_DIR": directory, "XDG_STATE_HOME": directory, "HOME": directory], userID: 1000)
    _ = try? DaemonSettings.resolve(options: options, paths: paths, workingDirectory: directory)
    return 0
}

@main
enum FuzzSettingsMain {
    static func main() {
        runFuzzer(fuzzSettings)
    }
}

import YcftCLI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

exit(Ycft.main(Array(CommandLine.arguments.dropFirst())))

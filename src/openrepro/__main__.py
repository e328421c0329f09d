from openrepro.cli import main

main()

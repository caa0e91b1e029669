// pipecheck: the command. All logic lives in app/ so that tests can drive it.
#include "app/cli.hpp"

int main(int argc, char** argv) { return pipecheck::run_cli(argc, argv); }

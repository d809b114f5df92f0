package main

import "golang.org/x/sys/unix"

// getTermios is the ioctl that reads a terminal's settings: its name
// differs between Linux and the BSDs.
const getTermios = unix.TCGETS

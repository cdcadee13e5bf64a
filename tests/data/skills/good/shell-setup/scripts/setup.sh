#!/bin/sh
set -eu
echo "installing the tools"

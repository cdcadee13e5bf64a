#!/usr/bin/env bash
# Reference call graph of a Java tree by javac (RefJava.java, run from source): ref_java.sh ROOT
exec java --add-exports jdk.compiler/com.sun.tools.javac.tree=ALL-UNNAMED "$(dirname "$0")/RefJava.java" "$1"

#!/bin/sh
# Answers a megabyte of lowercase letters, with no Q in it: what the slow
# checks of a suite run over.
head -c 1048576 /dev/zero | tr '\0' 'a'

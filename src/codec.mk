# The shared codecs: hex, SCALE, Poseidon2, blake2b/twox, headers, accounts.

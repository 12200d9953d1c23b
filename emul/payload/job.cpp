// Placeholder until the payload lands.
int main() { return 0; }

from memories.management.commands._passes import PassCommand


class Command(PassCommand):
    help = "Consolidate pending facts into observations (the 30-second pass), member by member."
    pass_name = "consolidate"

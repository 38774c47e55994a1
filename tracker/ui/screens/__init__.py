"""Screens: start (the saves folder), encounter (the fight), and the modal dialogs."""

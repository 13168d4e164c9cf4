"""The course on a JupyterHub during a class: what a learner's check tells the instructor's live view
(:mod:`.events`), and the hub service that keeps it and shows the class (:mod:`.store`,
:mod:`.service`; deploy/jupyterhub/jupyterhub_config.py starts it)."""

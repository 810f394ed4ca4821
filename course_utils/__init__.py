"""course_utils"""
